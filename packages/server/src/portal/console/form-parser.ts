import type { App } from '../../http/types.js';

/** Small forms only: a console form never needs more. */
const FORM_LIMIT_BYTES = 64 * 1024;

/**
 * application/x-www-form-urlencoded → an object; a repeated name (checkboxes) becomes an array.
 * The route's schema then validates it like any JSON body.
 */
export function registerFormParser(app: App): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES },
    (_request, body, done) => {
      const fields = new Map<string, string | string[]>();
      for (const [name, value] of new URLSearchParams(body as string)) {
        const seen = fields.get(name);
        fields.set(name, seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value]);
      }
      // fromEntries defines own properties, so a field named __proto__ is only a field.
      done(null, Object.fromEntries(fields));
    },
  );
}
