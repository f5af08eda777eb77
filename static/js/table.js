// The table page: card selection that survives live updates, the Hint button, auto-pass, the
// bots' countdown, the invitation link and the connection indicator. Everything else (the
// table itself, every rule) comes from the server over the websocket.
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
  }

  function absoluteInvite() {
    $$("[data-invite-link]").forEach(function (input) {
      if (input.value.indexOf("/") === 0) { input.value = window.location.origin + input.value; }
    });
  }

  function afterFrame() {
    select(kept);
    absoluteInvite();
    updateCountdowns();
    updateTimers();
    maybeAutoPass();
  }

  function setConnection(state) {
    var elt = document.getElementById("connection");
    if (!elt) { return; }
    elt.dataset.state = state;
    var key = "text" + state.charAt(0).toUpperCase() + state.slice(1);
    elt.textContent = elt.dataset[key] || state;
  }

  document.addEventListener("htmx:wsBeforeMessage", function () {
    kept = selectedCards();
  });
  document.addEventListener("htmx:wsAfterMessage", afterFrame);
  document.addEventListener("htmx:wsOpen", function () { setConnection("open"); });
  document.addEventListener("htmx:wsClose", function () { setConnection("closed"); });
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
  var SEAT_SWITCHES = {auto: true, resume: true, leave: true, stay: true};

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
    var prompt = document.getElementById("prompt");
    if (prompt) { prompt.innerHTML = ""; }
  });

  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target : null;
    if (!target) { return; }
    if (target.closest('[data-action="hint"]')) {
      event.preventDefault();
      showHint();
    } else if (target.closest("[data-close-prompt]")) {
      document.getElementById("prompt").innerHTML = "";
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
