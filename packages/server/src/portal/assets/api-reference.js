/* global Redoc, document */
// Renders /openapi.json with Redoc (bundled, served from this origin) under the page's
// Content-Security-Policy, which allows no inline style: only style elements that carry this
// response's nonce. This file runs before the Redoc bundle (both deferred, in order), so the style
// elements Redoc's modules create while loading get the nonce as well as those it makes later.
(function () {
  var mount = document.getElementById('reference');
  if (!mount) return;
  var nonce = mount.getAttribute('data-nonce') || '';
  var createElement = document.createElement.bind(document);
  document.createElement = function (tagName, options) {
    var element = createElement(tagName, options);
    if (String(tagName).toLowerCase() === 'style') element.setAttribute('nonce', nonce);
    return element;
  };
  document.addEventListener('DOMContentLoaded', function () {
    Redoc.init(
      mount.getAttribute('data-spec-url'),
      {
        nonce: nonce,
        expandResponses: '200,201',
        jsonSampleExpandLevel: 3,
        theme: {
          colors: { primary: { main: '#2449c9' }, text: { primary: '#1c2230' } },
          typography: {
            fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
            headings: { fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" },
            code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
          },
          sidebar: { backgroundColor: '#f5f7fa' },
          rightPanel: { backgroundColor: '#1c2230' },
        },
      },
      mount,
    );
  });
})();
