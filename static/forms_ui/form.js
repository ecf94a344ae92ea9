// Progressive enhancement for the payment form: countdowns, copy buttons, polling.
(function () {
  "use strict";
  var body = document.body;
  var live = document.querySelector("[data-live]");

  function announce(text) {
    if (!live || !text) return;
    live.textContent = "";
    setTimeout(function () { live.textContent = text; }, 50);
  }

  function poll() {
    var url = body.getAttribute("data-status-url");
    var current = body.getAttribute("data-state");
    if (!url || !body.hasAttribute("data-poll")) return;
    setInterval(function () {
      fetch(url, { cache: "no-store", credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (data && data.state && data.state !== current) {
            current = data.state;
            announce(live && live.getAttribute("data-state-changed"));
            setTimeout(function () { window.location.reload(); }, 300);
          }
        })
        .catch(function () {});
    }, 1500);
  }

  function successCountdown() {
    var el = document.querySelector('[data-testid="countdown"]');
    if (!el) return;
    var left = parseInt(el.textContent, 10);
    if (isNaN(left)) left = 5;
    var target = el.getAttribute("data-redirect-url");
    var pause = document.querySelector("[data-pause]");
    var timer;
    if (pause) {
      pause.hidden = false;
      pause.addEventListener("click", function () {
        clearInterval(timer);
        pause.hidden = true;
        var line = document.querySelector("[data-countdown-line]");
        if (line) line.hidden = true;
        var paused = document.querySelector("[data-paused]");
        if (paused) { paused.hidden = false; announce(paused.textContent); }
      });
    }
    timer = setInterval(function () {
      left -= 1;
      el.textContent = String(Math.max(left, 0));
      if (left <= 0) {
        clearInterval(timer);
        if (target) {
          window.location.assign(target);
        } else {
          var done = document.querySelector("[data-countdown-done]");
          if (done) done.hidden = false;
        }
      }
    }, 1000);
  }

  function timeLeft() {
    // Counted from the seconds the server gave by the database's clock, not from the
    // expiry moment, so a device whose clock is wrong still shows the order's time.
    document.querySelectorAll(".timer[data-seconds-left]").forEach(function (el) {
      var left = parseInt(el.getAttribute("data-seconds-left"), 10);
      if (isNaN(left)) return;
      var end = Date.now() + left * 1000;
      function tick() {
        var s = Math.max(0, Math.floor((end - Date.now()) / 1000));
        var m = Math.floor(s / 60);
        el.textContent = m + ":" + String(s % 60).padStart(2, "0");
      }
      tick();
      setInterval(tick, 1000);
    });
  }

  function copyButtons() {
    document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
      button.addEventListener("click", function () {
        var text = button.getAttribute("data-copy");
        var label = button.textContent;
        var done = function () {
          button.textContent = button.getAttribute("data-copied") || label;
          announce(button.getAttribute("data-copied"));
          setTimeout(function () { button.textContent = label; }, 1500);
        };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(done, done);
        } else {
          done();
        }
      });
    });
  }

  function localTimes() {
    // The server writes Moscow time; the payer reads their own clock's time, with
    // the zone named so nobody wonders which one it is.
    document.querySelectorAll("time[data-local-time]").forEach(function (el) {
      var at = new Date(el.getAttribute("datetime"));
      if (isNaN(at.getTime())) return;
      var pad = function (n) { return String(n).padStart(2, "0"); };
      var text = pad(at.getDate()) + "." + pad(at.getMonth() + 1) + "." + at.getFullYear() +
        " " + pad(at.getHours()) + ":" + pad(at.getMinutes());
      var offset = -at.getTimezoneOffset();
      var abs = Math.abs(offset);
      var zone = "UTC" + (offset === 0 ? "" : (offset < 0 ? "-" : "+") + Math.floor(abs / 60) +
        (abs % 60 ? ":" + pad(abs % 60) : ""));
      var name = "";
      try { name = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { name = ""; }
      el.textContent = text + " (" + (name ? name + ", " : "") + zone + ")";
    });
  }

  poll();
  localTimes();
  successCountdown();
  timeLeft();
  copyButtons();
})();
