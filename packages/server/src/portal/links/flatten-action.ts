/**
 * The action as rows of a table: nested fields get dotted labels (`payee.iban`), array items
 * indexed ones (`items[0].sku`); a key that is not a plain name is quoted (`["a.b"]`), so two
 * different actions never flatten to the same labels.
 */
export interface ActionRow {
  label: string;
  /** Strings as they are; other leaves as their JSON text. */
  value: string;
  type: 'string' | 'number' | 'boolean' | 'null' | 'empty object' | 'empty array';
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function labelFor(prefix: string, key: string): string {
  if (PLAIN_KEY.test(key)) return prefix === '' ? key : `${prefix}.${key}`;
  return `${prefix}[${JSON.stringify(key)}]`;
}

function leaf(label: string, value: unknown): ActionRow {
  if (typeof value === 'string') return { label, value, type: 'string' };
  if (typeof value === 'number') return { label, value: JSON.stringify(value), type: 'number' };
  if (typeof value === 'boolean') return { label, value: String(value), type: 'boolean' };
  return { label, value: 'null', type: 'null' };
}

function walk(prefix: string, value: unknown, rows: ActionRow[]): void {
  if (Array.isArray(value)) {
    if (value.length === 0) rows.push({ label: prefix, value: '[]', type: 'empty array' });
    value.forEach((item, i) => walk(`${prefix}[${i}]`, item, rows));
    return;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) rows.push({ label: prefix, value: '{}', type: 'empty object' });
    for (const [key, child] of entries) walk(labelFor(prefix, key), child, rows);
    return;
  }
  rows.push(leaf(prefix, value));
}

/** Every leaf of `action` in its key order (the canonical form's order when parsed from it). */
export function flattenAction(action: Record<string, unknown>): ActionRow[] {
  const rows: ActionRow[] = [];
  walk('', action, rows);
  return rows;
}

/** Two sides of a change, each as label → text (nothing, null, has no fields), and every label once. */
export interface ComparedFields {
  labels: string[];
  before: Map<string, string>;
  after: Map<string, string>;
}

/**
 * The fields of a change's before and after (the console's dangerous changes), flattened like an
 * action with dotted labels, for the console's Changes page and the hosted approval page alike.
 */
export function compareFields(before: unknown, after: unknown): ComparedFields {
  const fields = (value: unknown) =>
    value === null || value === undefined
      ? new Map<string, string>()
      : new Map(flattenAction({ v: value }).map((r) => [r.label.replace(/^v\.?/, ''), r.value]));
  const [b, a] = [fields(before), fields(after)];
  return { labels: [...new Set([...b.keys(), ...a.keys()])], before: b, after: a };
}
