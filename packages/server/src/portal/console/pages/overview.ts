import { bucketStart, periodContaining } from '../../../domain/billing/billing-period.js';
import { getUsage } from '../../../domain/billing/get-usage.js';
import { resolvePlan } from '../../../domain/billing/resolve-plan.js';
import { listWebhookDeliveries } from '../../../domain/webhooks/manage-webhook-deliveries.js';
import { listWebhookEndpoints } from '../../../domain/webhooks/manage-webhook-endpoints.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { page, type View } from '../routes.js';
import { barChart } from '../svg-chart.js';
import { badge, when } from '../widgets.js';

const DAY = 86_400_000;

async function usageCard(view: View): Promise<{ card: SafeHtml; attention: string[] }> {
  const { deps } = view.ctx;
  const period = periodContaining(deps.clock.now());
  const { plan } = await resolvePlan(deps, deps.store.billing, view.tenantId, period.start);
  const usage = await getUsage(deps, view.tenantId, {
    from: new Date(period.start).toISOString(),
    to: new Date(period.end).toISOString(),
    granularity: 'month',
  });
  const used = usage.totals['challenges.created'];
  const quota = plan.monthlyChallengeQuota;
  const share = quota ? Math.min(100, Math.round((used / quota) * 100)) : 0;
  const attention = quota && share >= 80 ? [`${share}% of this month's challenge quota is used.`] : [];
  const card = html`<section class="card" aria-labelledby="usage-title">
    <h2 id="usage-title">Usage in ${period.label}</h2>
    <p class="big">${used} <span class="muted">challenges of ${quota ?? 'unlimited'}</span></p>
    ${quota ? html`<meter min="0" max="${quota}" value="${used}" aria-label="Challenges used of the quota">${share}%</meter>` : ''}
    <p class="muted">
      Plan ${plan.name} · verified ${usage.totals['presence.verified']} · denied
      ${usage.totals['presence.denied']}
    </p>
  </section>`;
  return { card, attention };
}

async function decisionsChart(view: View): Promise<SafeHtml> {
  const { deps } = view.ctx;
  const to = bucketStart('day', deps.clock.now()) + DAY;
  const usage = await getUsage(deps, view.tenantId, {
    from: new Date(to - 30 * DAY).toISOString(),
    to: new Date(to).toISOString(),
    granularity: 'day',
  });
  return html`<section class="card wide" aria-labelledby="chart-title">
    <h2 id="chart-title">Decisions in the last 30 days</h2>
    ${barChart({
      title: 'Verified and denied presence checks per day',
      labels: usage.series.map((s) => s.start.slice(5, 10)),
      series: [
        {
          label: 'verified',
          className: 'verified',
          values: usage.series.map((s) => s.totals['presence.verified']),
        },
        {
          label: 'denied',
          className: 'denied',
          values: usage.series.map((s) => s.totals['presence.denied']),
        },
      ],
    })}
  </section>`;
}

async function webhookHealth(view: View): Promise<{ card: SafeHtml; attention: string[] }> {
  const { deps } = view.ctx;
  const endpoints = (await listWebhookEndpoints(deps, view.tenantId, { limit: 50 })).items;
  const attention: string[] = [];
  const rows: SafeHtml[] = [];
  let oldest: string | undefined;
  for (const e of endpoints) {
    const pending = await listWebhookDeliveries(
      deps,
      view.tenantId,
      e.id,
      { status: 'pending' },
      { limit: 100 },
    );
    const last = pending.items.at(-1)?.createdAt;
    if (last !== undefined && (oldest === undefined || last < oldest)) oldest = last;
    if (!e.enabled)
      attention.push(`Webhook endpoint ${e.url} is disabled: ${e.disabledReason ?? 'by a member'}.`);
    else if (e.failingSince)
      attention.push(`Webhook endpoint ${e.url} has been failing since ${when(e.failingSince)}.`);
    const state = !e.enabled
      ? badge('disabled', 'bad')
      : e.failingSince
        ? badge('failing', 'warn')
        : badge('healthy', 'ok');
    rows.push(html`<li><a href="/console/webhooks/${e.id}">${e.url}</a> ${state}</li>`);
  }
  const card = html`<section class="card" aria-labelledby="hooks-title">
    <h2 id="hooks-title">Webhook health</h2>
    ${
      rows.length === 0
        ? html`<p class="muted">No endpoints yet. <a href="/console/webhooks">Add one</a>.</p>`
        : html`<ul class="plain">
            ${rows}
          </ul>`
    }
    <p class="muted">Oldest undelivered event: ${oldest ? when(oldest) : 'none'}</p>
  </section>`;
  return { card, attention };
}

export function overviewRoutes(app: App): void {
  page(app, '/console', {}, async ({ view }) => {
    const [usage, chart, hooks] = await Promise.all([
      usageCard(view),
      decisionsChart(view),
      webhookHealth(view),
    ]);
    const attention = [...usage.attention, ...hooks.attention];
    const body = html`<section class="card wide" aria-labelledby="attention-title">
        <h2 id="attention-title">Needs attention</h2>
        ${
          attention.length === 0
            ? html`<p class="muted">Nothing needs attention.</p>`
            : html`<ul class="attention">
                ${attention.map((a) => html`<li>${a}</li>`)}
              </ul>`
        }
      </section>
      <div class="grid">${usage.card} ${hooks.card}</div>
      ${chart}`;
    return { title: 'Overview', nav: '/console', body };
  });
}
