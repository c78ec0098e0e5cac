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
    (request, body, done) => {
      const fields = new Map<string, string | string[]>();
      for (const [name, value] of new URLSearchParams(body as string)) {
        const seen = fields.get(name);
        fields.set(name, seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value]);
      }
      // JSON bodies are validated without coercion, so a lone checkbox value becomes the list its
      // schema names (the route's own body schema says which fields are lists).
      const properties = (
        request.routeOptions.schema?.body as { properties?: Record<string, { type?: unknown }> }
      )?.properties;
      for (const [name, value] of fields) {
        if (typeof value === 'string' && properties?.[name]?.type === 'array') fields.set(name, [value]);
      }
      // fromEntries defines own properties, so a field named __proto__ is only a field.
      done(null, Object.fromEntries(fields));
    },
  );
}
