/** Where the guard finds the evidence: a header (base64url of the JSON) or a body member. */

/** The least a request must have, in Express, Fastify and node:http alike. */
export interface GuardRequest {
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
}

export type ReadEvidence =
  { ok: true; evidence: unknown; kid: string | undefined } | { ok: false; detail: string };

export function readEvidence(request: GuardRequest, header: string, bodyField: string): ReadEvidence {
  const raw = request.headers[header.toLowerCase()];
  let evidence: unknown;
  if (typeof raw === 'string' && raw !== '') {
    try {
      evidence = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, detail: `the ${header} header is not base64url of JSON evidence` };
    }
  } else {
    const body = request.body;
    const member =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[bodyField] : undefined;
    if (member === undefined)
      return { ok: false, detail: `no evidence: send the ${header} header or the ${bodyField} body member` };
    try {
      evidence = typeof member === 'string' ? JSON.parse(member) : member;
    } catch {
      return { ok: false, detail: `${bodyField} is not JSON evidence` };
    }
  }
  if (typeof evidence !== 'object' || evidence === null)
    return { ok: false, detail: 'the evidence is not a JSON object' };
  return { ok: true, evidence, kid: kidOf(evidence as Record<string, unknown>) };
}

function kidOf(evidence: Record<string, unknown>): string | undefined {
  const signed = (evidence.approvalSet ?? evidence) as { signature?: { kid?: unknown } } | null;
  const kid = typeof signed === 'object' && signed !== null ? signed.signature?.kid : undefined;
  return typeof kid === 'string' ? kid : undefined;
}
