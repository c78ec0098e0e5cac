// Presence console: changes approved with the member's passkey (dangerous changes, a new passkey for
// the member) and the key form's presets. Loaded before console.js, whose start() calls
// window.PresenceConsoleChanges with its helpers. Every value from the network is shown with textContent.
'use strict';

window.PresenceConsoleChanges = function (tools) {
  const { webauthn, hasWebAuthn, $, api, explain, flash, setStatus, copy } = tools;

  function showSecret(box, secret, label) {
    const row = document.createElement('div');
    row.className = 'copy-row';
    const code = document.createElement('code');
    code.id = 'approval-secret';
    code.className = 'secret';
    code.textContent = secret;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary';
    button.dataset.copy = 'approval-secret';
    button.textContent = 'Copy ' + (label || 'the new secret');
    button.addEventListener('click', copy);
    row.append(code, button);
    box.append(row);
  }

  function addPasskey(button) {
    const status = $('passkey-status');
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        // A new passkey could pass every gate: one the member already has approves it first.
        setStatus(status, 'Confirm with a passkey you already have…', 'busy');
        const change = { kind: 'member.passkey.start', target: button.dataset.addPasskey, params: {} };
        const challenge = await api('/console/api/approvals/options', change);
        const assertion = await webauthn.startAuthentication({ optionsJSON: challenge.publicKey });
        const approved = await api('/console/api/approvals', {
          change,
          challengeId: challenge.challengeId,
          assertion,
        });
        const options = approved.registration;
        setStatus(status, 'Creating a passkey on this device…', 'busy');
        const credential = await webauthn.startRegistration({ optionsJSON: options.publicKey });
        await api('/console/api/passkeys', {
          registrationId: options.registrationId,
          credential,
          deviceName: tools.deviceName(),
        });
        setStatus(status, 'Passkey added.', 'ok');
        setTimeout(() => location.reload(), 1000);
      } catch (error) {
        setStatus(status, 'No passkey added. ' + explain(error), 'error');
        button.disabled = false;
      }
    });
  }

  function paramsOf(form) {
    const json = form.querySelector('textarea[data-json]');
    if (json) return JSON.parse(json.value);
    const params = {};
    for (const input of form.querySelectorAll('input[name]:not([type="hidden"]), select[name]')) {
      if (input.type === 'checkbox') {
        // A group of checkboxes is the list of the checked values (empty when none is).
        params[input.name] = params[input.name] || [];
        if (input.checked) params[input.name].push(input.value);
      } else {
        const numeric = input.type === 'number' || input.dataset.number !== undefined;
        params[input.name] = numeric ? Number(input.value) : input.value;
      }
    }
    return params;
  }

  // A dangerous change: the server binds a presence challenge to the exact change, the passkey
  // signs it, and the server executes only on PRESENCE_VERIFIED.
  async function approve(form) {
    const button = form.querySelector('button[type="submit"]');
    let change;
    try {
      change = { kind: form.dataset.approve, target: form.dataset.target, params: paramsOf(form) };
    } catch (error) {
      flash('The JSON is not valid: ' + error.message + '. Nothing was changed.', 'error');
      return;
    }
    button.disabled = true;
    flash('Confirm with your passkey to ' + button.textContent.trim().toLowerCase() + '…', 'busy');
    try {
      const challenge = await api('/console/api/approvals/options', change);
      showChange(challenge, button);
      const assertion = await webauthn.startAuthentication({ optionsJSON: challenge.publicKey });
      const result = await api('/console/api/approvals', {
        change,
        challengeId: challenge.challengeId,
        assertion,
      });
      const box = flash('Done: ' + result.message + ' (receipt ' + result.receiptId + ')', 'ok');
      if (result.pending) {
        const p = document.createElement('p');
        const a = document.createElement('a');
        a.href = '/console/changes';
        a.textContent = 'See it under Changes awaiting approval';
        p.append(a);
        box.append(p);
        return;
      }
      // A create form (its approval depends on the choice) is emptied: the secret is shown only here.
      if (form.dataset.approveWhen !== undefined) form.reset();
      if (result.secret) showSecret(box, result.secret, result.secretLabel);
      if (result.link) {
        const p = document.createElement('p');
        const a = document.createElement('a');
        a.href = result.link.href;
        a.textContent = result.link.text;
        p.append(a);
        box.append(p);
      }
      if (result.secret || result.link) return;
      if (result.redirect) location.assign(result.redirect);
      else setTimeout(() => location.reload(), 1500);
    } catch (error) {
      flash('Refused: ' + explain(error), 'error');
    } finally {
      button.disabled = false;
    }
  }

  // Flattens a JSON value into [dotted label, text] pairs, as the approval page does.
  function flatten(value, prefix, out) {
    if (Array.isArray(value)) {
      if (value.length === 0) out.set(prefix, '[]');
      value.forEach((item, i) => flatten(item, prefix + '[' + i + ']', out));
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      if (keys.length === 0) out.set(prefix, '{}');
      for (const key of keys) flatten(value[key], prefix ? prefix + '.' + key : key, out);
    } else out.set(prefix, typeof value === 'string' ? value : JSON.stringify(value));
    return out;
  }

  // While the passkey is asked: the exact before and after it signs, as text, and who else approves.
  function showChange(challenge, button) {
    const box = flash(
      'Confirm with your passkey to ' + button.textContent.trim().toLowerCase() + ':',
      'busy',
    );
    const { before, after } = challenge.change;
    // Nothing before (a new key) or after (a deleted endpoint): every field of that side is "—".
    const side = (value) => (value === null ? new Map() : flatten(value, '', new Map()));
    const [b, a] = [side(before), side(after)];
    const table = document.createElement('table');
    table.className = 'before-after';
    const caption = document.createElement('caption');
    caption.textContent = 'What your passkey approves';
    const head = document.createElement('tr');
    for (const text of ['Field', 'Before', 'After']) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = text;
      head.append(th);
    }
    table.append(caption, head);
    for (const label of new Set([...b.keys(), ...a.keys()])) {
      const row = document.createElement('tr');
      row.className = b.get(label) === a.get(label) ? 'same' : 'changed';
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = label || '(the whole)';
      row.append(th);
      for (const side of [b, a]) {
        const td = document.createElement('td');
        td.textContent = side.has(label) ? side.get(label) : '—';
        row.append(td);
      }
      table.append(row);
    }
    box.append(table);
    if (challenge.required > 1) {
      const p = document.createElement('p');
      p.textContent =
        'This change needs ' +
        challenge.required +
        ' approvers; yours is the first. The others (' +
        challenge.approverNames.join(', ') +
        ') approve it on its approval page.';
      box.append(p);
    }
  }

  function needsApproval(form) {
    const gated = form.dataset.approveWhen.split(' ');
    return [...form.querySelectorAll('input[type="checkbox"]:checked')].some((i) => gated.includes(i.value));
  }

  // A preset button checks exactly its scopes (those the member's role may use).
  function presets(box) {
    const form = box.closest('form');
    box.hidden = false;
    for (const button of box.querySelectorAll('button[data-preset]')) {
      button.addEventListener('click', () => {
        const chosen = button.dataset.preset.split(' ');
        for (const input of form.querySelectorAll('input[type="checkbox"]:not([disabled])')) {
          input.checked = chosen.includes(input.value);
        }
      });
    }
  }

  for (const box of document.querySelectorAll('[data-presets]')) presets(box);
  const add = document.querySelector('[data-add-passkey]');
  if (add) addPasskey(add);
  for (const form of document.querySelectorAll('form[data-approve]')) {
    form.addEventListener('submit', (event) => {
      // A form that needs the passkey only for some choices (a key with a powerful scope) posts
      // normally otherwise.
      if (form.dataset.approveWhen !== undefined && !needsApproval(form)) return;
      event.preventDefault();
      if (!hasWebAuthn) {
        flash('This change needs your passkey, and this browser cannot use passkeys.', 'error');
        return;
      }
      void approve(form);
    });
  }
};
