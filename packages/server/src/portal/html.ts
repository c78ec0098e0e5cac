/** Portal pages import the HTML template tag from here; it lives in src/html.ts, shared with http/. */
export { escapeHtml, html, SafeHtml } from '../html.js';
