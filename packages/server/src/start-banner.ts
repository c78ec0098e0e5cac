import type { DevelopmentStart } from './dev-tenant.js';

export interface BannerInput {
  /** The origin the developer's browser uses (the development origin). */
  origin: string;
  /** The console's public origin (PRESENCE_CONSOLE_ORIGIN, else the development origin). */
  consoleOrigin: string;
  development: DevelopmentStart;
}

/**
 * The one block `npm start` prints in development, outside the log stream (it holds the API key
 * of a new tenant, shown once): where everything is, the tenant id, and how to get a key later.
 */
export function renderStartBanner({ origin, consoleOrigin, development }: BannerInput): string {
  const { tenantId, apiKey, inviteUrl, originMissing } = development;
  const lines = [
    '',
    `Presence is running at ${origin}`,
    '',
    `  Console     ${consoleOrigin}/console`,
    `  Demo        ${origin}/demo`,
    `  API docs    ${origin}/docs   (guide: docs/integration.md)`,
    `  API base    ${origin}/v1`,
    `  SDK         npm install ${origin}/sdk/presence-sdk.tgz`,
    `  Python      pip install ${origin}/sdk/presence-guard.tar.gz   (executor guard: docs/executor-guards.md)`,
    `  Tenant      ${tenantId}   (development)`,
  ];
  if (apiKey !== undefined) {
    lines.push(`  API key     ${apiKey}`, '              shown once, stored only as a hash: copy it now');
  }
  lines.push(
    '',
    'A new API key later: in the console, Keys → Create; or from this directory:',
    `  npx presence keys create --tenant ${tenantId} --name backend --scope challenges:write --scope presence:verify --scope receipts:read`,
  );
  if (inviteUrl !== undefined) {
    lines.push('', 'Open this one-time owner invite to enroll a passkey for the console:', `  ${inviteUrl}`);
  }
  if (originMissing !== undefined) {
    lines.push(
      '',
      `The development tenant's policy does not allow ${originMissing} (was PORT changed?). Add it:`,
      `  in the console, Policy → Allowed origins; or PUT /v1/policy with it in allowedOrigins.`,
    );
  }
  return lines.join('\n') + '\n\n';
}
