// Presence console: small progressive enhancements. Passkey sign-in and enrollment, copy buttons and
// export progress; console-changes.js adds the passkey approval of changes. Plain browser JS, no
// bundler; every value from the network is shown with textContent.
'use strict';

(function () {
  const webauthn = window.SimpleWebAuthnBrowser;
  const csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || '';
  const $ = (id) => document.getElementById(id);

  function setStatus(el, text, kind) {
    if (!el) return;
    el.textContent = text;
    el.dataset.kind = kind || 'info';
  }

  async function api(path, body) {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify(body || {}),
      credentials: 'same-origin',
    });
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      const problem = data || {};
      const error = new Error(problem.detail || problem.title || 'HTTP ' + response.status);
      error.problem = problem;
      throw error;
    }
    return data;
  }

  // What a person should read when the browser refuses a passkey ceremony.
  function explain(error) {
    if (error && error.problem) return error.message;
    const name = (error && error.name) || '';
    if (name === 'NotAllowedError')
      return 'The passkey request was cancelled or timed out, or no passkey for this console is on this device. Nothing was changed; try again.';
    if (name === 'InvalidStateError') return 'This device already holds a passkey for this console.';
    if (name === 'SecurityError')
      return 'The browser refused passkeys on this address. Open the console on the address your team uses (for example http://localhost rather than 127.0.0.1).';
    if (name === 'NotSupportedError' || name === 'WebAuthnError')
      return 'This browser or device cannot use passkeys here.';
    if (name === 'AbortError') return 'The passkey request was interrupted. Try again.';
    return (error && error.message) || String(error);
  }

  function flash(text, kind) {
    const box = $('flash');
    if (!box) return;
    box.hidden = false;
    box.dataset.kind = kind;
    box.replaceChildren();
    const p = document.createElement('p');
    p.textContent = text;
    box.append(p);
    box.scrollIntoView({ block: 'nearest' });
    return box;
  }

  function signIn(section) {
    const button = $('sign-in-button');
    const status = $('sign-in-status');
    button.disabled = false;
    button.addEventListener('click', async () => {
      button.disabled = true;
      setStatus(status, 'Waiting for your passkey…', 'busy');
      try {
        const challenge = await api('/console/api/sign-in/options');
        const assertion = await webauthn.startAuthentication({ optionsJSON: challenge.publicKey });
        await api('/console/api/sign-in', { challengeId: challenge.challengeId, assertion });
        setStatus(status, 'Signed in.', 'ok');
        location.assign(section.dataset.next || '/console');
      } catch (error) {
        setStatus(status, 'Not signed in. ' + explain(error), 'error');
        button.disabled = false;
      }
    });
  }

  function enroll(section) {
    const button = $('enroll-button');
    const status = $('enroll-status');
    const token = section.dataset.invite;
    button.disabled = false;
    button.addEventListener('click', async () => {
      const displayName = $('display-name').value.trim();
      if (!displayName) {
        setStatus(status, 'Enter your name first.', 'error');
        $('display-name').focus();
        return;
      }
      button.disabled = true;
      setStatus(status, 'Creating a passkey on this device…', 'busy');
      try {
        const path = '/console/api/invite/' + encodeURIComponent(token);
        const options = await api(path + '/options', { displayName });
        const credential = await webauthn.startRegistration({ optionsJSON: options.publicKey });
        await api(path, { displayName, registrationId: options.registrationId, credential });
        setStatus(status, 'Welcome! Your passkey is enrolled.', 'ok');
        location.assign('/console');
      } catch (error) {
        setStatus(status, 'Not enrolled. ' + explain(error), 'error');
        button.disabled = false;
      }
    });
  }

  async function copy(event) {
    const source = $(event.currentTarget.dataset.copy);
    const button = event.currentTarget;
    try {
      await navigator.clipboard.writeText(source.textContent);
      button.textContent = 'Copied';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      button.textContent = 'Selected: press Ctrl+C';
    }
  }

  // The export streams; show how much has arrived, then offer the finished pack.
  async function exportPack(form) {
    const status = $('export-status');
    const link = $('export-link');
    const url = form.action + '?' + new URLSearchParams(new FormData(form)).toString();
    link.hidden = true;
    setStatus(status, 'Preparing the pack…', 'busy');
    try {
      const response = await fetch(url, { headers: { accept: 'application/zip, application/json' } });
      if (!response.ok) {
        const problem = await response.json().catch(() => ({}));
        throw Object.assign(new Error(problem.detail || 'HTTP ' + response.status), { problem });
      }
      const reader = response.body.getReader();
      const chunks = [];
      let received = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        received += value.length;
        setStatus(status, 'Receiving the pack: ' + Math.round(received / 1024) + ' KiB…', 'busy');
      }
      const id = response.headers.get('x-presence-export-id') || 'export';
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob(chunks, { type: 'application/zip' }));
      a.download = 'presence-export-' + id + '.zip';
      a.id = 'export-download';
      a.textContent = 'Download the pack (' + Math.round(received / 1024) + ' KiB)';
      link.replaceChildren(a);
      link.hidden = false;
      setStatus(status, 'The pack is ready: ' + received + ' bytes, signed by the service.', 'ok');
    } catch (error) {
      setStatus(status, 'The export failed: ' + explain(error), 'error');
    }
  }

  function start() {
    for (const button of document.querySelectorAll('[data-copy]')) button.addEventListener('click', copy);
    const exportForm = document.querySelector('form[data-export]');
    if (exportForm)
      exportForm.addEventListener('submit', (event) => {
        event.preventDefault();
        void exportPack(exportForm);
      });
    const hasWebAuthn = webauthn && webauthn.browserSupportsWebAuthn();
    const signInSection = document.querySelector('[data-sign-in]');
    const inviteSection = document.querySelector('[data-invite]');
    if (!hasWebAuthn && (signInSection || inviteSection)) {
      flash('This browser cannot use passkeys (or a script failed to load).', 'error');
    } else {
      if (signInSection) signIn(signInSection);
      if (inviteSection) enroll(inviteSection);
    }
    const tools = { webauthn, hasWebAuthn, $, api, explain, flash, setStatus, copy };
    if (window.PresenceConsoleChanges) window.PresenceConsoleChanges(tools);
    document.body.dataset.ready = 'true';
  }

  start();
})();
