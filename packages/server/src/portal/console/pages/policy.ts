import type { PolicyRules, PolicyVersion } from '@presence/contract';
import { mayChange } from '../../../domain/console/permissions.js';
import { listPolicyVersions } from '../../../domain/policy/list-policy-versions.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { page, type View } from '../routes.js';
import { dangerForm, when } from '../widgets.js';

/** Flattens rules to `path → JSON value` so two versions can be compared field by field. */
function flatten(value: unknown, path = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value))
      for (const [p, s] of flatten(v, `${path}.${k}`)) out.set(p, s);
  } else out.set(path.slice(1), JSON.stringify(value));
  return out;
}

function diff(older: PolicyRules, newer: PolicyRules): SafeHtml {
  const a = flatten(older);
  const b = flatten(newer);
  const keys = [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();
  if (keys.length === 0) return html`<p class="muted">No difference in the rules.</p>`;
  return html`<ul class="diff">
    ${keys.map(
      (k) =>
        html`<li>
          <code>${k}</code>: <del>${a.get(k) ?? '(absent)'}</del> → <ins>${b.get(k) ?? '(absent)'}</ins>
        </li>`,
    )}
  </ul>`;
}

/** The editable subset, as the PUT /v1/policy body: the same schema validates it. */
function editable(rules: PolicyRules) {
  return {
    rpId: rules.rpId,
    rpName: rules.rpName,
    allowedOrigins: rules.allowedOrigins,
    allowCrossOrigin: rules.allowCrossOrigin,
    allowedTopOrigins: rules.allowedTopOrigins,
    ...(rules.relatedOrigins ? { relatedOrigins: rules.relatedOrigins } : {}),
    challengeTtlSeconds: rules.challengeTtlSeconds,
    registrationTtlSeconds: rules.registrationTtlSeconds,
    allowedAlgorithms: rules.allowedAlgorithms,
    attestation: rules.attestation,
    counter: rules.counter,
  };
}

function editForm(view: View, current: PolicyVersion): SafeHtml {
  return html`<section class="card wide" aria-labelledby="edit-title">
    <h2 id="edit-title">Change the policy</h2>
    <p>
      Edit the JSON body of <code>PUT /v1/policy</code>. It is checked against the same schema as the API; the
      change applies only after your passkey approves it, and makes a new version.
    </p>
    ${dangerForm({
      kind: 'policy.change',
      target: 'policy',
      label: 'Approve and save a new policy version',
      csrf: view.csrf,
      fields: html`<label for="policy-json">Policy JSON</label>
        <textarea id="policy-json" name="policy" rows="18" spellcheck="false" data-json>
${JSON.stringify(editable(current.rules), null, 2)}</textarea>`,
    })}
  </section>`;
}

export function policyPages(app: App): void {
  page(app, '/console/policy', {}, async ({ view }) => {
    const versions = await listPolicyVersions(view.ctx.deps, view.tenantId, 50);
    const current = versions[0]!;
    const body = html`<section class="card wide" aria-labelledby="current-title">
        <h2 id="current-title">Version ${current.version} (in force since ${when(current.createdAt)})</h2>
        <pre class="json" id="policy-current" tabindex="0">${JSON.stringify(current.rules, null, 2)}</pre>
        <p class="muted">Policy hash <code class="wrap">${current.policyHashHex}</code></p>
      </section>
      ${mayChange(view.signedIn.member.role, 'policy') ? editForm(view, current) : ''}
      <section class="card wide" aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        <ol class="history">
          ${versions.map(
            (v, i) =>
              html`<li>
                <strong>Version ${v.version}</strong> · ${when(v.createdAt)} · <code>${v.policyId}</code>
                ${versions[i + 1] ? diff(versions[i + 1]!.rules, v.rules) : html`<p class="muted">The first version.</p>`}
              </li>`,
          )}
        </ol>
      </section>`;
    return { title: 'Policy', nav: '/console/policy', body };
  });
}
