/**
 * What a person sees must be what was hashed (docs/api-contract.md#13-approvals): characters that reorder text or
 * show nothing are made visible as marks such as `⟨U+202E⟩`, and words that mix Latin with
 * Cyrillic or Greek (or are written wholly in Latin look-alikes of those scripts) are flagged.
 */

/** One piece of a value: plain text, or a mark standing for one hidden character. */
export type TextPiece = { text: string } | { mark: string; name: string };

export interface RevealedText {
  pieces: TextPiece[];
  /** How many characters were replaced by marks. */
  hidden: number;
  /** Words that mix scripts or look like Latin without being Latin, as written. */
  confusable: string[];
}

const NAMES: Record<number, string> = {
  0x00ad: 'soft hyphen',
  0x061c: 'Arabic letter mark',
  0x200b: 'zero-width space',
  0x200c: 'zero-width non-joiner',
  0x200d: 'zero-width joiner',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2060: 'word joiner',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0xfeff: 'zero-width no-break space',
};

/** Blank-looking letters and fillers that are not in the Cf/Cc/Z categories. */
const BLANK_LETTERS = new Set([0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x3164, 0xffa0, 0x2800]);

/**
 * Hidden: format (Cf: bidi controls, zero-width characters, tags), control (Cc: also newline and
 * tab, which would otherwise change a value's look), unassigned and private use, every separator
 * but the plain space, variation selectors and the blank letters above.
 */
const HIDDEN = /[\p{Cf}\p{Cc}\p{Cn}\p{Co}\p{Zl}\p{Zp}\p{Zs}\u{fe00}-\u{fe0f}\u{e0100}-\u{e01ef}]/u;

export function isHidden(char: string): boolean {
  const code = char.codePointAt(0)!;
  return (char !== ' ' && HIDDEN.test(char)) || BLANK_LETTERS.has(code);
}

export function markOf(code: number): string {
  return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

function nameOf(code: number): string {
  return NAMES[code] ?? 'invisible or control character';
}

/** Cyrillic and Greek letters that look like Latin ones in common fonts. */
const LATIN_LOOKALIKES = new Set('АВЕЅІЈКМНОРСТХУаеіјорсхуѕԁԛԝһӏАВΕΖΗΙΚΜΝΟΡΤΥΧαοντυ'.replace(/\s/g, ''));

const SCRIPTS: readonly [string, RegExp][] = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
];

function scriptsOf(word: string): Set<string> {
  const found = new Set<string>();
  for (const char of word) {
    for (const [name, pattern] of SCRIPTS) if (pattern.test(char)) found.add(name);
  }
  return found;
}

/** Whether a word mixes Latin with Cyrillic or Greek, or is Cyrillic/Greek made only of Latin look-alikes. */
export function isConfusableWord(word: string): boolean {
  const scripts = scriptsOf(word);
  if (scripts.size > 1) return true;
  if (scripts.has('Latin') || scripts.size === 0) return false;
  const letters = [...word].filter((c) => /\p{L}/u.test(c));
  return letters.length > 0 && letters.every((c) => LATIN_LOOKALIKES.has(c));
}

function confusableWords(text: string): string[] {
  const words = text.split(/[^\p{L}\p{M}\p{N}]+/u).filter((w) => w.length > 0);
  return [...new Set(words.filter(isConfusableWord))];
}

/** Splits `text` into plain runs and marks for each hidden character; flags confusable words. */
export function revealText(text: string): RevealedText {
  const pieces: TextPiece[] = [];
  let run = '';
  let hidden = 0;
  for (const char of text) {
    if (!isHidden(char)) {
      run += char;
      continue;
    }
    if (run !== '') pieces.push({ text: run });
    run = '';
    const code = char.codePointAt(0)!;
    pieces.push({ mark: markOf(code), name: nameOf(code) });
    hidden += 1;
  }
  if (run !== '') pieces.push({ text: run });
  return { pieces, hidden, confusable: confusableWords(text) };
}
