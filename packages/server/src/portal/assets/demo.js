// Presence demo page. Plain browser JS, no bundler: it talks to the demo backend (/demo/api/…),
// which plays the caller's server. Every value from the network is shown with textContent.
'use strict';

(function () {
  const SUBJECT_KEY = 'presence-demo-subject';
  const ENROLLED_KEY = 'presence-demo-credential';
  const webauthn = window.SimpleWebAuthnBrowser;
  const $ = (id) => document.getElementById(id);

  function newSubject() {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return 'demo-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  }

  function subject() {
    let value = localStorage.getItem(SUBJECT_KEY);
    if (!value || !/^demo-[A-Za-z0-9_-]{8,64}$/.test(value)) {
      value = newSubject();
      localStorage.setItem(SUBJECT_KEY, value);
    }
    return value;
  }

  function setStatus(id, text, kind) {
    const el = $(id);
    el.textContent = text;
    el.dataset.kind = kind || 'info';
  }

  async function api(method, path, body) {
    const init = { method, headers: { accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      const problem = data || {};
      const detail = problem.detail ? ': ' + problem.detail : '';
      throw new Error(
        (problem.title || 'HTTP ' + response.status) +
          detail +
          (problem.code ? ' (' + problem.code + ')' : ''),
      );
    }
    return data;
  }

  // What a person should read when something refuses: never a raw DOMException name.
  function ceremonyError(error) {
    const name = (error && error.name) || '';
    if (name === 'NotAllowedError')
      return 'The passkey request was cancelled or timed out, or this device holds no passkey for this subject';
    if (name === 'InvalidStateError') return 'This device already holds a passkey for this subject';
    if (name === 'SecurityError')
      return 'The browser refused passkeys on this address: open the demo on the address the tenant allows (see above)';
    if (name === 'NotSupportedError' || name === 'WebAuthnError')
      return 'This browser or device cannot create or use passkeys here';
    if (name === 'AbortError') return 'The passkey request was interrupted';
    const message = (error && error.message) || String(error);
    return message.replace(/\.+$/, '');
  }

  async function sha256Hex(text) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  function showEnrollment() {
    $('subject').textContent = subject();
    const credential = localStorage.getItem(ENROLLED_KEY);
    if (credential)
      setStatus('enroll-status', 'Passkey enrolled for this subject (credential ' + credential + ').', 'ok');
    else setStatus('enroll-status', 'No passkey enrolled for this subject yet.', 'info');
  }

  async function enroll() {
    setStatus('enroll-status', 'Asking your authenticator to create a passkey…', 'busy');
    try {
      const options = await api('POST', '/demo/api/registration-options', { subject: subject() });
      const credential = await webauthn.startRegistration({ optionsJSON: options.publicKey });
      const created = await api('POST', '/demo/api/credentials', {
        registrationId: options.registrationId,
        credential,
      });
      localStorage.setItem(ENROLLED_KEY, created.credential.id);
      showEnrollment();
    } catch (error) {
      setStatus('enroll-status', 'Enrollment failed. ' + ceremonyError(error), 'error');
    }
  }

  function showDecision(outcome, title, detail) {
    $('result').hidden = false;
    const box = $('decision');
    box.dataset.outcome = outcome;
    box.replaceChildren();
    const strong = document.createElement('strong');
    strong.textContent = title;
    const p = document.createElement('p');
    p.textContent = detail;
    box.append(strong, p);
  }

  // A new approval starts with no decision shown: the last one's must not stand for this one.
  function resetResult(challenge) {
    $('decision').dataset.outcome = 'none';
    $('decision').replaceChildren();
    $('challenge-id').textContent = challenge ? challenge.challengeId : '—';
    $('challenge-hash').textContent = challenge ? challenge.actionHashHex : '—';
    $('receipt-id').textContent = '—';
    $('receipt-hash').textContent = '—';
    $('receipt-block').hidden = true;
  }

  async function showReceipt(result) {
    $('receipt-id').textContent = result.receiptId;
    $('receipt-hash').textContent = result.receiptHashHex;
    const url = '/demo/api/receipts/' + encodeURIComponent(result.receiptId);
    $('receipt-link').href = url;
    $('receipt-json').textContent = JSON.stringify(await api('GET', url), null, 2);
    $('receipt-block').hidden = false;
  }

  async function approve() {
    setStatus('approve-status', 'Creating a challenge bound to the payout…', 'busy');
    resetResult(null);
    let challenge;
    try {
      challenge = await api('POST', '/demo/api/challenges', { subject: subject() });
    } catch (error) {
      setStatus('approve-status', 'Could not create a challenge. ' + ceremonyError(error), 'error');
      return;
    }
    resetResult(challenge);
    // The server made this payout (with its own payoutId) and bound the challenge to its hash.
    $('action-json').textContent = JSON.stringify(challenge.action, null, 2);
    $('action-canonical').textContent = challenge.canonicalJson;
    $('action-hash').textContent = challenge.actionHashHex;
    if ((await sha256Hex(challenge.canonicalJson)) !== challenge.actionHashHex) {
      showDecision('denied', 'Not approved', 'The challenge is bound to another hash than the payout shown.');
      return;
    }
    setStatus('approve-status', 'Waiting for your authenticator (touch it and verify yourself)…', 'busy');
    let assertion;
    try {
      assertion = await webauthn.startAuthentication({ optionsJSON: challenge.publicKey });
    } catch (error) {
      setStatus('approve-status', '', 'info');
      showDecision(
        'error',
        'Not approved: no assertion',
        ceremonyError(error) + '. Nothing was signed and nothing is paid; the unused challenge expires.',
      );
      return;
    }
    await decide(challenge, assertion);
  }

  async function decide(challenge, assertion) {
    try {
      const result = await api('POST', '/demo/api/verify', { challengeId: challenge.challengeId, assertion });
      setStatus('approve-status', '', 'info');
      if (result.decision === 'PRESENCE_VERIFIED') {
        showDecision(
          'verified',
          'PRESENCE_VERIFIED',
          'A verified human approved exactly this payout. The caller may execute it.',
        );
        await showReceipt(result);
      } else {
        showDecision(
          'denied',
          'Denied: ' + result.decision,
          (result.reason || '') + ' The payout must not be executed.',
        );
      }
    } catch (error) {
      showDecision('error', 'Not approved: the verify call failed', ceremonyError(error));
    }
  }

  function start() {
    if (!webauthn || !webauthn.browserSupportsWebAuthn()) {
      setStatus('support', 'This browser does not support WebAuthn (or the script failed to load).', 'error');
      return;
    }
    showEnrollment();
    $('enroll-button').addEventListener('click', enroll);
    $('approve-button').addEventListener('click', approve);
    $('new-subject-button').addEventListener('click', () => {
      localStorage.setItem(SUBJECT_KEY, newSubject());
      localStorage.removeItem(ENROLLED_KEY);
      resetResult(null);
      $('result').hidden = true;
      showEnrollment();
    });
    for (const id of ['enroll-button', 'approve-button', 'new-subject-button']) $(id).disabled = false;
    document.body.dataset.ready = 'true';
  }

  start();
})();
