import type { ApprovalPageState } from '@presence/contract';
import { html, type SafeHtml } from '../html.js';
import { compareFields } from './flatten-action.js';
import { shownText, type TextFindings } from './shown-text.js';

/**
 * For an action that carries `before` and `after` (the console's dangerous changes,
 * docs/console.md#approvers-of-dangerous-changes): the two side by side, changed fields marked in
 * words, every value shown as text like the full table below it (which stays the complete record).
 */
export function beforeAfterSection(s: ApprovalPageState, findings: TextFindings): SafeHtml {
  const action = s.action as Record<string, unknown>;
  if (!Object.hasOwn(action, 'before') || !Object.hasOwn(action, 'after')) return html``;
  const { labels, before, after } = compareFields(action['before'], action['after']);
  const cell = (side: string, value: string | undefined) =>
    html`<td class="value">
      <span class="side">${side}: </span
      ><bdi class="text">${value === undefined ? '—' : shownText(value, findings)}</bdi>
    </td>`;
  const rows = labels.map((label) => {
    const changed = before.get(label) !== after.get(label);
    return html`<tr class="${changed ? 'changed' : 'same'}">
      <th scope="row">
        <bdi class="text">${label === '' ? '(the whole)' : shownText(label, findings)}</bdi>
        ${changed ? html`<strong class="flag">changed</strong>` : ''}
      </th>
      ${cell('Before', before.get(label))} ${cell('After', after.get(label))}
    </tr>`;
  });
  return html`<section class="card" aria-labelledby="before-after-h">
    <h2 id="before-after-h">Before and after</h2>
    <p>What this change replaces and what it makes; "—" where nothing exists. A new secret is never shown.</p>
    <table class="action compare">
      <caption>
        The action's before and after fields, side by side
      </caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </section>`;
}
