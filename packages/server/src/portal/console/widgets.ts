import { html, type SafeHtml } from '../html.js';

/** "2026-11-22 16:40 UTC" from an ISO string or epoch milliseconds; "—" for none. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '—';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrf}" />`;
}

/** A secret shown once, with a copy button (console.js) and a plain selectable text. */
export function secretOnce(label: string, secret: string): SafeHtml {
  return html`<section class="callout ok" aria-labelledby="secret-title">
    <h2 id="secret-title">${label}</h2>
    <p>Copy it now: it is shown only once and stored only as a hash or sealed.</p>
    <div class="copy-row">
      <code id="secret-value" class="secret">${secret}</code>
      <button type="button" class="secondary" data-copy="secret-value">Copy ${label.toLowerCase()}</button>
    </div>
  </section>`;
}

/**
 * A dangerous change: a form that console.js turns into a passkey approval (kind, target and the
 * form's fields are the exact change). Without JavaScript it posts to /console/approve, which
 * explains why it cannot run.
 */
export function dangerForm(input: {
  kind: string;
  target: string;
  label: string;
  csrf: string;
  fields?: SafeHtml;
}): SafeHtml {
  return html`<form
    method="post"
    action="/console/approve"
    class="danger-form"
    data-approve="${input.kind}"
    data-target="${input.target}"
  >
    ${csrfField(input.csrf)} ${input.fields ?? ''}
    <button type="submit" class="danger">${input.label}</button>
  </form>`;
}

/**
 * A small form with one button. `label` may hold `|` and then words only assistive technology reads
 * (e.g. "Redeliver|dlv_…"), so every button in a table has a unique accessible name.
 */
export function plainForm(
  action: string,
  csrf: string,
  label: string,
  fields: SafeHtml = html``,
  kind = 'secondary',
): SafeHtml {
  const [shown, hidden] = label.split('|');
  return html`<form method="post" action="${action}" class="inline-form">
    ${csrfField(csrf)} ${fields}
    <button type="submit" class="${kind}">
      ${shown}${hidden ? html`<span class="sr-only"> ${hidden}</span>` : ''}
    </button>
  </form>`;
}

export function empty(text: string): SafeHtml {
  return html`<p class="muted empty">${text}</p>`;
}

export function badge(text: string, kind: 'ok' | 'bad' | 'warn' | 'plain' = 'plain'): SafeHtml {
  return html`<span class="badge ${kind}">${text}</span>`;
}

/**
 * A list table that stacks into labelled rows on narrow screens (class `stack`), or `emptyText`
 * when there are no rows. `rows` are the rendered `<tr>`s.
 */
export function stackedTable(
  headers: readonly string[],
  rows: readonly SafeHtml[],
  emptyText: string,
): SafeHtml {
  if (rows.length === 0) return empty(emptyText);
  return html`<div class="table-wrap">
    <table class="stack">
      <thead>
        <tr>
          ${headers.map((h) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}
