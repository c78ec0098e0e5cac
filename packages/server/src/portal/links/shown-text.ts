import { html, type SafeHtml } from '../html.js';
import { revealText } from './visible-text.js';

/** What the page found in the texts it shows: hidden characters made visible, confusable words. */
export interface TextFindings {
  hidden: number;
  confusable: string[];
}

export function emptyFindings(): TextFindings {
  return { hidden: 0, confusable: [] };
}

/**
 * A value as escaped text with every hidden character shown as a mark (its name in a tooltip and
 * for screen readers); the findings are added to `findings`. Never interpreted as markup.
 */
export function shownText(text: string, findings: TextFindings): SafeHtml {
  const revealed = revealText(text);
  findings.hidden += revealed.hidden;
  for (const word of revealed.confusable) {
    if (!findings.confusable.includes(word)) findings.confusable.push(word);
  }
  return html`${revealed.pieces.map((piece) =>
    'mark' in piece
      ? html`<span class="mark" title="${piece.name}"
          ><span aria-hidden="true">${piece.mark}</span
          ><span class="sr-only">(hidden character ${piece.mark}: ${piece.name})</span></span
        >`
      : piece.text,
  )}`;
}

/** The warnings a person must read before deciding; nothing when the texts are plain. */
export function findingsWarning(findings: TextFindings): SafeHtml {
  if (findings.hidden === 0 && findings.confusable.length === 0) return html``;
  return html`<div class="warning" role="alert">
    <h3>Check this action carefully</h3>
    ${
      findings.hidden > 0
        ? html`<p>
            It contains ${findings.hidden} hidden or direction-changing
            character${findings.hidden === 1 ? '' : 's'}, shown here as marks like
            <span class="mark">⟨U+202E⟩</span>. They can make text look different from what is signed. Reject
            unless the requester can explain them.
          </p>`
        : ''
    }
    ${
      findings.confusable.length > 0
        ? html`<p>
            These words mix alphabets or use look-alike letters (for example a Cyrillic “а” for a Latin “a”):
            ${findings.confusable.map((w, i) => html`${i > 0 ? ', ' : ''}<strong>${w}</strong>`)}. Check them
            with the requester before you approve.
          </p>`
        : ''
    }
  </div>`;
}
