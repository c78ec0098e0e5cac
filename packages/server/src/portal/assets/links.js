// The hosted approval and enrollment pages. The server-rendered page is complete without this
// script; it counts the expiry down and runs the passkey ceremonies. Every value from the
// network is shown with textContent, never as markup.
'use strict';

(function () {
  const webauthn = window.SimpleWebAuthnBrowser;
  const MESSAGE_KEY = 'presence-link-message';
  const progress = document.getElementById('progress');
  const base = location.pathname.replace(/\/+$/, '');

  function say(text, kind) {
    progress.textContent = text;
    progress.dataset.kind = kind || 'info';
  }

  // A message that survives the reload which shows the new state.
  function sayAfterReload(text, kind) {
    sessionStorage.setItem(MESSAGE_KEY, JSON.stringify({ text, kind }));
    location.reload();
  }

  function showSavedMessage() {
    const saved = sessionStorage.getItem(MESSAGE_KEY);
    if (!saved) return;
    sessionStorage.removeItem(MESSAGE_KEY);
    try {
      const { text, kind } = JSON.parse(saved);
      say(String(text), kind);
    } catch {
      // a damaged message is dropped
    }
  }

  class Problem extends Error {
    constructor(status, body) {
      super((body && body.detail) || (body && body.title) || 'HTTP ' + status);
      this.status = status;
      this.code = body && body.code;
      this.title = body && body.title;
    }
  }

  async function post(path, body) {
    const response = await fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => null);
    if (!response.ok) throw new Problem(response.status, data);
    return data;
  }

  function refusalMessage(problem) {
    const detail = problem.message;
    if (problem.code === 'approval_decision_refused') {
      if (/is the initiator/.test(detail))
        return 'This passkey belongs to the requester, who cannot approve their own request. Ask one of the approvers to decide.';
      if (/already decided/.test(detail))
        return 'You have already decided this approval; a second decision does not count.';
      return "This passkey is not one of the approvers'. Use the passkey you enrolled for this approval, or ask the requester to add you.";
    }
    if (problem.code === 'approval_not_pending' || problem.code === 'link_expired')
      return (
        'This request can no longer be decided (' + detail + '). Reload the page to see its final state.'
      );
    if (problem.code === 'policy_violation')
      return detail + '. Ask the requester to send you an enrollment link.';
    if (problem.code === 'rate_limited')
      return 'Too many attempts from this network. Wait a minute, then try again.';
    return (problem.title || 'The request failed') + ': ' + detail;
  }

  function ceremonyMessage(error, enrolling) {
    const name = (error && error.name) || '';
    if (name === 'NotAllowedError')
      return enrolling
        ? 'No passkey was created: the request was cancelled or timed out. Press the button to try again.'
        : 'No passkey of an approver who has not decided yet was used: the request was cancelled, timed out, or this device holds no such passkey. Use the passkey you enrolled for this approval, or ask the requester to add you.';
    if (name === 'InvalidStateError')
      return 'This device already holds a passkey for this account: you can use it on approval pages.';
    if (name === 'SecurityError')
      return 'Your browser refused passkeys on this address. Open the link exactly as it was sent to you.';
    if (error instanceof Problem) return refusalMessage(error);
    return 'Something went wrong: ' + ((error && error.message) || String(error)) + '. Try again.';
  }

  const DENIED = {
    CREDENTIAL_NOT_FOUND:
      "This passkey is not one of the approvers'. Use the passkey you enrolled for this approval, or ask the requester to add you.",
    USER_NOT_VERIFIED:
      'Your device did not verify you (fingerprint, face or PIN). Try again and unlock the passkey.',
    CHALLENGE_EXPIRED: 'The passkey request took too long. Press the button again.',
  };

  function setBusy(busy) {
    for (const b of document.querySelectorAll('button')) b.disabled = busy;
  }

  async function decide(intent) {
    const verb = intent === 'approve' ? 'approval' : 'rejection';
    setBusy(true);
    try {
      say('Asking your passkey to sign your ' + verb + '…', 'busy');
      const options = await post('/options', { intent });
      const assertion = await webauthn.startAuthentication({ optionsJSON: options.publicKey });
      say('Checking your passkey…', 'busy');
      const result = await post('/decide', { challengeId: options.challengeId, assertion });
      if (result.recorded) {
        return sayAfterReload(
          'Your ' +
            verb +
            ' was recorded (receipt ' +
            result.receiptId +
            '). Nothing else is needed from you.',
          'ok',
        );
      }
      say(
        DENIED[result.decision] ||
          'Your passkey was not accepted (' +
            result.decision +
            '): ' +
            (result.reason || '') +
            '. Try again.',
        'bad',
      );
    } catch (error) {
      say(ceremonyMessage(error, false), 'bad');
    } finally {
      setBusy(false);
    }
  }

  async function enroll() {
    setBusy(true);
    try {
      say('Asking your device to create a passkey…', 'busy');
      const options = await post('/options', {});
      const credential = await webauthn.startRegistration({ optionsJSON: options.publicKey });
      say('Saving your passkey…', 'busy');
      await post('/finish', { credential });
      return sayAfterReload(
        'Your passkey is enrolled. You can close this page: approval links sent to you will accept it.',
        'ok',
      );
    } catch (error) {
      say(ceremonyMessage(error, true), 'bad');
    } finally {
      setBusy(false);
    }
  }

  function countDown() {
    const el = document.getElementById('countdown');
    if (!el) return;
    const end = Date.parse(el.dataset.expiresAt);
    const tick = () => {
      const left = Math.max(0, Math.round((end - Date.now()) / 1000));
      if (left === 0) {
        el.textContent = '(expired: reload the page)';
        setBusy(true);
        return;
      }
      const h = Math.floor(left / 3600);
      const m = Math.floor((left % 3600) / 60);
      const s = left % 60;
      el.textContent = '(in ' + (h > 0 ? h + ' h ' : '') + (h > 0 || m > 0 ? m + ' min ' : '') + s + ' s)';
      setTimeout(tick, 1000);
    };
    tick();
  }

  for (const button of document.querySelectorAll('button[data-intent]')) {
    button.addEventListener('click', () => void decide(button.dataset.intent));
  }
  for (const button of document.querySelectorAll('button[data-enroll]')) {
    button.addEventListener('click', () => void enroll());
  }
  showSavedMessage();
  countDown();
})();
