// The table page: card selection that survives live updates, the Hint button, auto-pass, the
// bots' countdown, the invitation link, the meaning prompt and the connection (its state and
// its reconnects). Everything else (the table itself, every rule) comes from the server over
// the websocket.
(function () {
  "use strict";

  var AUTO_PASS_KEY = "gandengyan.autoPass";
  var hintIndex = -1;
  var hintVersion = null;
  var autoPassedVersion = null;
  var kept = [];

  function $(selector, root) {
    return (root || document).querySelector(selector);
  }

  function $$(selector, root) {
    return Array.prototype.slice.call((root || document).querySelectorAll(selector));
  }

  function tableElt() {
    return document.getElementById("table");
  }

  function handBoxes() {
    return $$('#hand-form input[name="cards"]');
  }

  function selectedCards() {
    return handBoxes().filter(function (box) { return box.checked; }).map(function (box) { return box.value; });
  }

  function select(cards) {
    handBoxes().forEach(function (box) {
      box.checked = cards.indexOf(box.value) !== -1;
    });
  }

  function hints() {
    var data = document.getElementById("hints");
    if (!data) { return []; }
    try { return JSON.parse(data.textContent) || []; } catch (e) { return []; }
  }

  function showHint() {
    var list = hints();
    if (!list.length) { return; }
    var table = tableElt();
    if (hintVersion !== table.dataset.version) {
      hintVersion = table.dataset.version;
      hintIndex = -1;
    }
    hintIndex = (hintIndex + 1) % list.length;
    select(list[hintIndex].cards.split(" "));
  }

  function maybeAutoPass() {
    var table = tableElt();
    var box = document.getElementById("auto-pass");
    if (!table || !box || !box.checked) { return; }
    if (table.dataset.myTurn !== "true" || table.dataset.canBeat !== "false" || table.dataset.leading === "true") { return; }
    if (autoPassedVersion === table.dataset.version) { return; }
    var pass = $('[data-action="pass"]');
    if (!pass) { return; }
    autoPassedVersion = table.dataset.version;
    window.setTimeout(function () {
      if (tableElt() && tableElt().dataset.version === autoPassedVersion) { pass.click(); }
    }, 600);
  }

  function updateCountdowns() {
    $$("[data-count-to]").forEach(function (elt) {
      var at = Date.parse(elt.dataset.countTo);
      var left = Math.max(0, Math.ceil((at - Date.now()) / 1000));
      elt.textContent = (elt.dataset.template || "{n}").replace("{n}", left);
    });
  }

  // The bar shows the time left until the server's deadline for the turn, so a reload shows the
  // same time left; the server acts when it passes, whatever this clock says.
  function updateTimers() {
    $$(".countdown[data-deadline]").forEach(function (elt) {
      var deadline = Date.parse(elt.dataset.deadline);
      var total = Number(elt.dataset.seconds) || 20;
      var left = Math.max(0, (deadline - Date.now()) / 1000);
      var bar = $(".countdown-bar", elt);
      var text = $(".countdown-text", elt);
      if (bar) { bar.style.width = Math.min(100, (left / total) * 100) + "%"; }
      if (text) { text.textContent = Math.ceil(left) + "s"; }
      elt.classList.toggle("is-low", left <= 5);
    });
    updateRetryIn();
  }

  function absoluteInvite() {
    $$("[data-invite-link]").forEach(function (input) {
      if (input.value.indexOf("/") === 0) { input.value = window.location.origin + input.value; }
    });
  }

  // The meaning prompt arrives as a closed dialog: shown modal, it sits over the table with its
  // choices in sight, takes the focus and closes with Escape.
  function openPrompt() {
    var dialog = $("#prompt dialog");
    if (dialog && !dialog.open && typeof dialog.showModal === "function") { dialog.showModal(); }
  }

  function closePrompt() {
    var prompt = document.getElementById("prompt");
    var dialog = $("dialog", prompt);
    if (dialog && dialog.open) { dialog.close(); }
    if (prompt) { prompt.innerHTML = ""; }
  }

  function afterFrame() {
    select(kept);
    absoluteInvite();
    updateCountdowns();
    updateTimers();
    openPrompt();
    maybeAutoPass();
  }

  // The connection. htmx's websocket extension reconnects by itself only after close codes
  // 1006, 1011, 1012 and 1013, so a clean close (a proxy's or the server's) would leave the page
  // dead. The page reconnects after every close but the ones that say the table is not for this
  // user (4401, 4404) or that this socket is one too many (4429: the user's tabs or the table's
  // spectators; the server's last message says which), with growing pauses, and at once when the
  // network or the tab comes back.
  var CLOSE_SIGNED_OUT = 4401;
  var CLOSE_NO_TABLE = 4404;
  var CLOSE_TOO_MANY = 4429;
  var RETRY_MAX_MS = 30000;
  // A reconnect that works within this time is not worth a banner over the table.
  var BANNER_AFTER_MS = 1500;
  var link = {
    state: "connecting",
    wrapper: null,    // htmx's socket wrapper, whose reconnect() opens a new socket
    socket: null,     // the newest socket it made
    failures: 0,      // closes since the last frame came through
    retryAt: 0,
    retryTimer: null,
    downSince: 0,
    bannerTimer: null,
    leaving: false,
  };

  if (window.htmx) {
    // The page schedules every reconnect itself; htmx's own timer (started only after some
    // codes) would open a second socket beside it, so it waits the longest a timer can.
    window.htmx.config.wsReconnectDelay = function () { return 2147483647; };
    var createSocket = window.htmx.createWebSocket;
    if (createSocket) {
      window.htmx.createWebSocket = function (url) {
        link.socket = createSocket(url);
        return link.socket;
      };
    }
  }

  function retryIn() {
    return Math.max(0, Math.ceil((link.retryAt - Date.now()) / 1000));
  }

  function updateRetryIn() {
    var elt = $("[data-retry-in]");
    if (!elt || link.state !== "reconnecting") { return; }
    var left = link.retryTimer ? retryIn() : 0;
    elt.textContent = left > 0 ? elt.dataset.template.replace("{n}", left) : elt.dataset.textTrying;
  }

  function showAlert() {
    var alert = document.getElementById("connection-alert");
    if (!alert) { return; }
    var shown = link.state !== "open" && link.state !== "connecting" &&
      (link.state !== "reconnecting" || Date.now() - link.downSince >= BANNER_AFTER_MS);
    alert.hidden = !shown;
    $$("[data-when]", alert).forEach(function (part) {
      part.hidden = !shown || part.dataset.when !== link.state;
    });
    var page = $(".table-page");
    if (page) { page.dataset.connection = shown ? link.state : "open"; }
    updateRetryIn();
  }

  function setConnection(state) {
    var down = state !== "open" && state !== "connecting";
    if (down && !link.downSince) { link.downSince = Date.now(); }
    if (!down) { link.downSince = 0; }
    link.state = state;
    var elt = document.getElementById("connection");
    if (elt) {
      elt.dataset.state = state;
      var key = "text" + state.replace(/(^|-)(\w)/g, function (m, dash, c) { return c.toUpperCase(); });
      elt.textContent = elt.dataset[key] || state;
    }
    // A stale table takes no clicks: whatever is chosen on it would be refused, or sent late.
    var table = tableElt();
    if (table) { table.inert = down; }
    if (down) { closePrompt(); }
    window.clearTimeout(link.bannerTimer);
    if (state === "reconnecting") { link.bannerTimer = window.setTimeout(showAlert, BANNER_AFTER_MS); }
    showAlert();
  }

  function isFinal(state) {
    return state === "gone" || state === "signed-out" || state === "busy";
  }

  function reconnectNow() {
    window.clearTimeout(link.retryTimer);
    link.retryTimer = null;
    if (isFinal(link.state) || link.state === "open" || !link.wrapper || link.leaving) { return; }
    if (navigator.onLine === false) { setConnection("offline"); return; }
    // An attempt still under way ends in a close, which plans the next one.
    if (link.socket && link.socket.readyState !== WebSocket.CLOSED) { return; }
    setConnection("reconnecting");
    link.wrapper.reconnect();
  }

  function planReconnect() {
    window.clearTimeout(link.retryTimer);
    link.retryTimer = null;
    if (navigator.onLine === false) { setConnection("offline"); return; }
    // Full jitter between half and all of a doubling pause, so that the players of a server
    // that restarts do not all come back at the same moment.
    var pause = Math.min(RETRY_MAX_MS, 1000 * Math.pow(2, link.failures));
    var delay = pause / 2 + Math.random() * pause / 2;
    link.failures += 1;
    link.retryAt = Date.now() + delay;
    link.retryTimer = window.setTimeout(reconnectNow, delay);
    setConnection("reconnecting");
  }

  document.addEventListener("htmx:wsBeforeMessage", function () {
    kept = selectedCards();
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    link.failures = 0;  // a frame came through: the connection works
    afterFrame();
  });
  document.addEventListener("htmx:wsConnecting", function () {
    if (link.state !== "connecting") { setConnection("reconnecting"); }
  });
  document.addEventListener("htmx:wsOpen", function (event) {
    link.wrapper = event.detail.socketWrapper;
    setConnection("open");
  });
  document.addEventListener("htmx:wsClose", function (event) {
    link.wrapper = event.detail.socketWrapper;
    var closed = event.detail.event;
    if (link.leaving || (link.socket && closed.target && closed.target !== link.socket)) { return; }
    if (closed.code === CLOSE_NO_TABLE) {
      setConnection("gone");
    } else if (closed.code === CLOSE_SIGNED_OUT) {
      setConnection("signed-out");
    } else if (closed.code === CLOSE_TOO_MANY) {
      setConnection("busy");
    } else if (!isFinal(link.state)) {
      planReconnect();
    }
  });

  window.addEventListener("offline", function () {
    if (isFinal(link.state)) { return; }
    // A socket can outlive the network that carried it without a word: close it, so that the
    // table comes back through a new one.
    if (link.socket && link.socket.readyState === WebSocket.OPEN) { link.socket.close(4000, "offline"); }
    setConnection("offline");
  });
  window.addEventListener("online", function () {
    link.failures = 0;
    reconnectNow();
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { reconnectNow(); }
  });
  window.addEventListener("pagehide", function () { link.leaving = true; });
  window.addEventListener("pageshow", function () {
    link.leaving = false;
    reconnectNow();
  });
  // Every action carries an id, the same for the same action on the same view: the server
  // applies an id once, so a double click or a resend after a reconnect cannot act twice.
  var actionIds = {};
  var actionIdsVersion = null;

  function randomId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return (b < 16 ? "0" : "") + b.toString(16);
    }).join("");
  }

  // These set a state of the seat, which the server leaves alone when it holds already, and
  // switching back and forth keeps the table's version: each press gets its own id.
  // A quick phrase said twice is two phrases: each has its own id too.
  var SEAT_SWITCHES = {auto: true, resume: true, leave: true, stay: true, say: true};

  function actionId(parameters) {
    if (SEAT_SWITCHES[parameters.action]) { return randomId(); }
    var table = tableElt();
    var version = table ? table.dataset.version : "";
    if (version !== actionIdsVersion) {
      actionIds = {};
      actionIdsVersion = version;
    }
    var key = JSON.stringify(Object.keys(parameters).filter(function (name) {
      return name !== "action_id" && name !== "HEADERS";
    }).sort().map(function (name) { return [name, parameters[name]]; }));
    if (!actionIds[key]) { actionIds[key] = randomId(); }
    return actionIds[key];
  }

  document.addEventListener("htmx:wsConfigSend", function (event) {
    event.detail.parameters.action_id = actionId(event.detail.parameters);
    // A sent play clears the prompt; the next frame shows the result.
    closePrompt();
  });

  // Escape closes the prompt's dialog by itself; its slot is emptied too.
  document.addEventListener("close", function (event) {
    if (event.target && event.target.closest && event.target.closest("#prompt")) { closePrompt(); }
  }, true);

  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target : null;
    if (!target) { return; }
    if (target.closest('[data-action="hint"]')) {
      event.preventDefault();
      showHint();
    } else if (target.closest("[data-close-prompt]")) {
      closePrompt();
    } else if (target.closest("[data-reconnect]")) {
      reconnectNow();
    } else if (target.closest("[data-copy-invite]")) {
      var input = $("[data-invite-link]");
      if (input) {
        input.select();
        if (navigator.clipboard) { navigator.clipboard.writeText(input.value).catch(function () {}); }
      }
    }
  });

  document.addEventListener("change", function (event) {
    if (event.target && event.target.id === "auto-pass") {
      window.localStorage.setItem(AUTO_PASS_KEY, event.target.checked ? "1" : "0");
      maybeAutoPass();
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("auto-pass");
    if (box) { box.checked = window.localStorage.getItem(AUTO_PASS_KEY) === "1"; }
    afterFrame();
    window.setInterval(updateCountdowns, 1000);
    window.setInterval(updateTimers, 250);
  });
})();
