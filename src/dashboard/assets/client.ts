/**
 * The dashboard's browser script, shipped as a string so it needs no build step and no CDN.
 * It keeps relative times fresh, handles "select all" and confirmations, and re-renders the
 * page's <main> when the daemon reports progress over server-sent events (polling as fallback).
 */
export const CLIENT_JS = `
(function () {
  'use strict';
  var main = document.getElementById('main');
  var indicator = document.getElementById('live');

  function relative(date) {
    var diff = date.getTime() - Date.now(), abs = Math.abs(diff);
    if (abs < 10000) return 'just now';
    var units = [[86400000, 'd'], [3600000, 'h'], [60000, 'min'], [1000, 's']];
    for (var i = 0; i < units.length; i++) {
      if (abs >= units[i][0]) {
        var n = Math.floor(abs / units[i][0]);
        return diff < 0 ? n + ' ' + units[i][1] + ' ago' : 'in ' + n + ' ' + units[i][1];
      }
    }
    return 'just now';
  }
  function refreshTimes() {
    var els = document.querySelectorAll('time[datetime] [data-rel]');
    for (var i = 0; i < els.length; i++) {
      var d = new Date(els[i].parentNode.getAttribute('datetime'));
      if (!isNaN(d.getTime())) els[i].textContent = relative(d);
    }
  }
  setInterval(refreshTimes, 15000);

  function updateSelection() {
    var forms = document.querySelectorAll('form[data-selection]');
    for (var i = 0; i < forms.length; i++) {
      var boxes = forms[i].querySelectorAll('input[name="id"]');
      var n = 0;
      for (var j = 0; j < boxes.length; j++) if (boxes[j].checked) n++;
      var outs = forms[i].querySelectorAll('[data-selected-count]');
      for (var k = 0; k < outs.length; k++) outs[k].textContent = String(n);
      var needs = forms[i].querySelectorAll('[data-needs-selection]');
      for (var m = 0; m < needs.length; m++) needs[m].disabled = n === 0;
      var all = forms[i].querySelector('[data-select-all]');
      if (all) { all.checked = n > 0 && n === boxes.length; all.indeterminate = n > 0 && n < boxes.length; }
    }
  }
  document.addEventListener('change', function (e) {
    var t = e.target;
    if (t && t.hasAttribute && t.hasAttribute('data-select-all')) {
      var boxes = t.form ? t.form.querySelectorAll('input[name="id"]') : [];
      for (var i = 0; i < boxes.length; i++) boxes[i].checked = t.checked;
    }
    updateSelection();
  });
  document.addEventListener('click', function (e) {
    var b = e.target && e.target.closest ? e.target.closest('[data-confirm]') : null;
    if (b && !window.confirm(b.getAttribute('data-confirm'))) e.preventDefault();
  });

  // Re-render <main> from a fresh copy of the page, keeping what the operator was doing:
  // ticked boxes, opened details, scroll position. Skipped while they are typing in a field.
  var pending = false, last = 0, inflight = false;
  function busy() {
    var a = document.activeElement;
    return a && main.contains(a) && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName) && a.type !== 'checkbox';
  }
  function swap() {
    if (inflight) { pending = true; return; }
    if (busy()) { setTimeout(swap, 1000); return; }
    inflight = true; pending = false; last = Date.now();
    fetch(location.href, { headers: { 'x-dashboard-refresh': '1' }, credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (!text) return;
        var doc = new DOMParser().parseFromString(text, 'text/html');
        var next = doc.getElementById('main');
        if (!next) return;
        var checked = {}, open = {};
        var boxes = main.querySelectorAll('input[type="checkbox"][name="id"]');
        for (var i = 0; i < boxes.length; i++) if (boxes[i].checked) checked[boxes[i].value] = true;
        var det = main.querySelectorAll('details[id]');
        for (var j = 0; j < det.length; j++) if (det[j].open) open[det[j].id] = true;
        main.innerHTML = next.innerHTML;
        main.setAttribute('data-running', next.getAttribute('data-running') || '0');
        var nb = main.querySelectorAll('input[type="checkbox"][name="id"]');
        for (var k = 0; k < nb.length; k++) if (checked[nb[k].value]) nb[k].checked = true;
        var nd = main.querySelectorAll('details[id]');
        for (var m = 0; m < nd.length; m++) if (open[nd[m].id]) nd[m].open = true;
        updateSelection();
        document.dispatchEvent(new CustomEvent('dashboard:refreshed'));
      })
      .catch(function () {})
      .then(function () { inflight = false; if (pending) schedule(); });
  }
  function schedule() {
    if (pending && inflight) return;
    pending = true;
    var wait = Math.max(250, 1000 - (Date.now() - last));
    setTimeout(function () { if (pending) swap(); }, wait);
  }

  var connected = false;
  if (window.EventSource && main && main.hasAttribute('data-live')) {
    var es = new EventSource('/api/stream');
    es.addEventListener('open', function () {
      connected = true;
      if (indicator) { indicator.classList.add('on'); indicator.textContent = 'live'; }
      // Whatever happened between rendering the page and connecting was not announced: catch up.
      if (main.getAttribute('data-running') === '1') schedule();
    });
    es.addEventListener('error', function () { connected = false; if (indicator) { indicator.classList.remove('on'); indicator.textContent = 'reconnecting'; } });
    es.addEventListener('sync', function () { schedule(); });
  }
  // Polling while a run is in progress: every 5 s without server-sent events, every 15 s with
  // them as a safety net (a run in another process announces nothing to this one).
  var ticks = 0;
  setInterval(function () {
    ticks++;
    if (main && main.getAttribute('data-running') === '1' && (!connected || ticks % 3 === 0)) schedule();
  }, 5000);
  updateSelection();
})();
`;
