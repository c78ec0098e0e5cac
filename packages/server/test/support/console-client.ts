/**
 * Drives the tenant console over app.inject as a browser would: a cookie jar, the CSRF token read
 * from the page, passkey ceremonies with the SDK's software authenticator.
 */
import type { App } from '../../src/http/types.js';
import type { ConsoleSettings } from '../../src/domain/console/console-settings.js';
import { createInvite } from '../../src/domain/console/create-invite.js';
import type { ConsoleRole } from '../../src/domain/console/ports.js';
import { SoftAuthenticator } from './soft-authenticator.js';
import type { TestService } from './test-service.js';

export interface ConsoleResponse {
  status: number;
  body: string;
  json: any;
  headers: Record<string, unknown>;
}

export class ConsoleClient {
  cookie = '';
  csrf = '';
  readonly authenticator: SoftAuthenticator;

  constructor(
    private readonly app: App,
    settings: ConsoleSettings,
    authenticator?: SoftAuthenticator,
  ) {
    const origin = new URL(settings.origin);
    this.authenticator = authenticator ?? new SoftAuthenticator(origin.hostname, settings.origin);
  }

  private remember(headers: Record<string, unknown>): void {
    const set = headers['set-cookie'];
    const line = Array.isArray(set) ? String(set[0]) : typeof set === 'string' ? set : undefined;
    if (line === undefined) return;
    const pair = line.split(';')[0] ?? '';
    this.cookie = pair.endsWith('=') ? '' : pair;
  }

  async get(url: string): Promise<ConsoleResponse> {
    const res = await this.app.inject({
      method: 'GET',
      url,
      headers: this.cookie ? { cookie: this.cookie } : {},
    });
    const csrf = /<meta name="csrf-token" content="([^"]*)"/.exec(res.body)?.[1];
    if (csrf) this.csrf = csrf;
    return { status: res.statusCode, body: res.body, json: undefined, headers: res.headers };
  }

  /** A form post (urlencoded); `_csrf` is added unless the test sets it (or omits it with null). */
  async form(
    url: string,
    fields: [string, string][],
    csrf: string | null = this.csrf,
  ): Promise<ConsoleResponse> {
    const params = new URLSearchParams(fields);
    if (csrf !== null) params.set('_csrf', csrf);
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(this.cookie ? { cookie: this.cookie } : {}),
      },
      payload: params.toString(),
    });
    this.remember(res.headers);
    return { status: res.statusCode, body: res.body, json: undefined, headers: res.headers };
  }

  async post(
    url: string,
    body: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<ConsoleResponse> {
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-csrf-token': this.csrf,
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...extraHeaders,
      },
      payload: JSON.stringify(body),
    });
    this.remember(res.headers);
    const json = res.body === '' ? undefined : JSON.parse(res.body);
    return { status: res.statusCode, body: res.body, json, headers: res.headers };
  }

  /** Opens the invite, enrolls this client's authenticator and keeps the session cookie. */
  async join(inviteUrl: string, displayName: string): Promise<ConsoleResponse> {
    const path = new URL(inviteUrl).pathname;
    const token = path.split('/').at(-1)!;
    const options = await this.post(`/console/api/invite/${token}/options`, { displayName });
    if (options.status !== 200) return options;
    const credential = this.authenticator.register({ challenge: options.json.publicKey.challenge });
    const joined = await this.post(`/console/api/invite/${token}`, {
      displayName,
      registrationId: options.json.registrationId,
      credential,
    });
    await this.get('/console');
    return joined;
  }

  async signIn(): Promise<ConsoleResponse> {
    const challenge = await this.post('/console/api/sign-in/options', {});
    const assertion = this.authenticator.assert({ challenge: challenge.json.publicKey.challenge });
    const result = await this.post('/console/api/sign-in', {
      challengeId: challenge.json.challengeId,
      assertion,
    });
    await this.get('/console');
    return result;
  }

  /** Adds `authenticator`'s passkey to this member: an existing passkey approves it first. */
  async addPasskey(
    authenticator: SoftAuthenticator,
    memberId: string,
    flags?: number,
  ): Promise<ConsoleResponse> {
    const approved = await this.approve(
      { kind: 'member.passkey.start', target: memberId, params: {} },
      flags,
    );
    if (approved.status !== 200) return approved;
    const registration = approved.json.registration;
    const credential = authenticator.register({ challenge: registration.publicKey.challenge });
    return this.post('/console/api/passkeys', { registrationId: registration.registrationId, credential });
  }

  /** A dangerous change through the passkey gate; `flags` overrides the assertion's flags (e.g. no UV). */
  async approve(
    change: { kind: string; target: string; params: object },
    flags?: number,
  ): Promise<ConsoleResponse> {
    const options = await this.post('/console/api/approvals/options', change);
    if (options.status !== 200) return options;
    const assertion = this.authenticator.assert({
      challenge: options.json.publicKey.challenge,
      ...(flags === undefined ? {} : { flags }),
    });
    return this.post('/console/api/approvals', { change, challengeId: options.json.challengeId, assertion });
  }
}

/**
 * A new console member of the test tenant (or of `tenantId`) with `role`, joined with its own
 * passkey through an invite the operator made: its signed-in client and its member id.
 */
export async function joinedMember(
  s: Pick<TestService, 'composed' | 'tenantId'>,
  role: ConsoleRole,
  name = `A ${role}`,
  tenantId = s.tenantId,
): Promise<{ client: ConsoleClient; memberId: string }> {
  const settings = await s.composed.consoleSettings();
  const { invite, inviteUrl } = await createInvite(s.composed.deps, settings, {
    tenantId,
    role,
    createdBy: null,
  });
  const client = new ConsoleClient(s.composed.app, settings);
  const joined = await client.join(inviteUrl, name);
  if (joined.status !== 200) throw new Error(`joining as ${role} answered ${joined.status}: ${joined.body}`);
  return { client, memberId: invite.memberId };
}
