// The traders' cabinet: ticking timers, copy buttons, the second question before a
// confirm or decline, and the orders list kept fresh by a conditional poll.
(function () {
  "use strict";
  var POLL_MS = 2000;

  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function mmss(s) { s = Math.max(0, s); return pad(Math.floor(s / 60)) + ":" + pad(s % 60); }

  // Timers: each counts down from the seconds the server gave when it drew the list.
  function startTimers(root) {
    var now = Date.now();
    root.querySelectorAll('[data-testid="order-timer"]').forEach(function (el) {
      el.dataset.deadline = String(now + Number(el.dataset.seconds || 0) * 1000);
    });
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll('[data-testid="order-timer"][data-deadline]').forEach(function (el) {
      var left = Math.round((Number(el.dataset.deadline) - now) / 1000);
      el.textContent = mmss(left);
      el.classList.toggle("low", left <= 60);
      if (left <= -1) {  // ran out: the order has ended, it leaves the list
        var card = el.closest('[data-testid="trader-order"]');
        if (card) { card.remove(); emptyState(); }
      }
    });
  }

  function emptyState() {
    var list = document.getElementById("orders"), empty = document.getElementById("no-orders");
    if (list && empty) empty.hidden = list.querySelector('[data-testid="trader-order"]') !== null;
  }

  // Copy buttons copy their data-copy text.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.copy[data-copy]");
    if (!button) return;
    var done = function () {
      button.classList.add("done");
      setTimeout(function () { button.classList.remove("done"); }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(button.dataset.copy).then(done, function () {});
    } else {
      var area = document.createElement("textarea");
      area.value = button.dataset.copy;
      area.setAttribute("readonly", "");
      area.className = "sr-only";
      document.body.appendChild(area);
      area.select();
      try { document.execCommand("copy"); done(); } catch (e) { /* nothing to do */ }
      area.remove();
    }
  });

  // The second question: one sheet for the page, filled for the order asked about.
  var ask = document.getElementById("ask");
  var opener = null;
  function openAsk(link) {
    var card = link.closest('[data-testid="trader-order"]');
    var kind = link.dataset.ask, side = card.dataset.side;
    var form = document.getElementById("ask-form");
    form.action = "/trader/orders/" + card.dataset.orderId + "/" + kind + "/";
    var text = ask.getAttribute("data-text-" + kind + "-" + side.toLowerCase()) || "";
    document.getElementById("ask-title").textContent = text.replace("{amount}", card.dataset.amountShown);
    var field = document.getElementById("paid-field"), input = document.getElementById("paid-amount");
    var paid = kind === "confirm" && side === "Buy";
    field.hidden = !paid;
    input.disabled = !paid;
    input.value = "";
    input.placeholder = paid ? card.dataset.amount : "";
    var yes = document.getElementById("confirm-yes");
    yes.textContent = ask.dataset["yes" + kind.charAt(0).toUpperCase() + kind.slice(1)];
    yes.disabled = false;
    yes.classList.toggle("danger", kind === "decline");
    yes.classList.toggle("primary", kind !== "decline");
    opener = link;
    ask.hidden = false;
    document.getElementById("ask-title").focus();
  }
  function closeAsk() {
    if (!ask || ask.hidden) return;
    ask.hidden = true;
    if (opener && document.body.contains(opener)) opener.focus();
    opener = null;
  }
  if (ask) {
    document.addEventListener("click", function (event) {
      var link = event.target.closest("a[data-ask]");
      if (link) { event.preventDefault(); openAsk(link); return; }
      if (event.target.closest("#confirm-no")) { event.preventDefault(); closeAsk(); }
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape") closeAsk();
    });
    // One tap is one request: a second tap while the first is on its way does nothing.
    document.getElementById("ask-form").addEventListener("submit", function (event) {
      var form = event.target;
      if (form.dataset.sent) { event.preventDefault(); return; }
      form.dataset.sent = "1";
      setTimeout(function () { document.getElementById("confirm-yes").disabled = true; }, 0);
    });
  }

  // The poll: If-None-Match with the list's version; 304 while nothing changed.
  var list = document.getElementById("orders");
  function refocus(before) {
    if (!before) return;
    var el = list.querySelector('[data-order-id="' + before.id + '"] [data-testid="' + before.testid + '"]');
    if (el) el.focus();
  }
  function poll() {
    var active = document.activeElement, before = null;
    if (active && list.contains(active)) {
      var card = active.closest('[data-testid="trader-order"]');
      if (card) before = { id: card.dataset.orderId, testid: active.dataset.testid };
    }
    fetch(list.dataset.live, {
      headers: { "If-None-Match": list.dataset.etag, "Accept": "text/html" },
      credentials: "same-origin",
      cache: "no-store",
    }).then(function (response) {
      if (response.redirected) { window.location.reload(); return null; }
      if (response.status !== 200) return null;
      list.dataset.etag = response.headers.get("ETag") || "";
      return response.text();
    }).then(function (html) {
      if (html === null || html === undefined) return;
      list.innerHTML = html;
      startTimers(list);
      tick();
      emptyState();
      refocus(before);
    }).catch(function () { /* offline for a moment: the next poll tries again */ })
      .then(function () { setTimeout(poll, POLL_MS); });
  }

  if (list) {
    startTimers(document);
    tick();
    setInterval(tick, 1000);
    setTimeout(poll, POLL_MS);
  }
  if (ask && !ask.hidden) document.getElementById("ask-title").focus();
})();
