// Quick phrases and emotes at the table: the menu that sends them (over the table's socket, by
// its ws-send forms), the bubbles the server sends back (each placed by its sender's seat for a
// few seconds, and said in the page's live region), and the people panel (mute, report), which
// the server renders. The switch that hides the other players' phrases is switches.js's.
(function () {
  "use strict";

  var BUBBLE_MS = 4000;  // as long as its animation in chat.css

  function $(selector, root) {
    return (root || document).querySelector(selector);
  }

  function $$(selector, root) {
    return Array.prototype.slice.call((root || document).querySelectorAll(selector));
  }

  // The menu ---------------------------------------------------------------------------------

  function menuOpen(open, focusBack) {
    var toggle = document.getElementById("chat-toggle");
    var menu = document.getElementById("chat-menu");
    if (!toggle || !menu) { return; }
    menu.hidden = !open;
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) {
      var first = $("button", menu);
      if (first) { first.focus(); }
    } else if (focusBack) {
      toggle.focus();
    }
  }

  function menuIsOpen() {
    var menu = document.getElementById("chat-menu");
    return !!menu && !menu.hidden;
  }

  document.addEventListener("click", function (event) {
    var target = event.target && event.target.closest ? event.target : null;
    if (!target) { return; }
    if (target.closest("#chat-toggle")) {
      menuOpen(!menuIsOpen(), false);
    } else if (menuIsOpen() && !target.closest("#chat-menu")) {
      menuOpen(false, false);
    }
  });

  // Sent: the menu closes, and the focus goes back to its button.
  document.addEventListener("htmx:wsConfigSend", function (event) {
    if (event.detail.parameters.action === "say") { menuOpen(false, true); }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && menuIsOpen()) {
      event.preventDefault();
      menuOpen(false, true);
      return;
    }
    // Arrows move between the menu's buttons, as in a grid of emotes.
    var menu = document.getElementById("chat-menu");
    if (!menuIsOpen() || !menu.contains(document.activeElement)) { return; }
    var step = {ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1}[event.key];
    if (!step) { return; }
    var buttons = $$("button", menu);
    var at = buttons.indexOf(document.activeElement);
    if (at === -1) { return; }
    event.preventDefault();
    buttons[(at + step + buttons.length) % buttons.length].focus();
  });

  // The bubbles ------------------------------------------------------------------------------

  function seatOf(bubble) {
    return $('#table .seat[data-seat="' + bubble.dataset.chatSeat + '"]');
  }

  // By the seat: below one in the upper half of the table, above one in the lower half, with
  // its tail pointing at the seat's middle.
  function place(bubble) {
    var layer = document.getElementById("chat-bubbles");
    var page = layer && layer.offsetParent;
    var table = document.getElementById("table");
    var anchor = seatOf(bubble) || table;
    if (!page || !anchor || !table) { return; }
    var box = page.getBoundingClientRect();
    var at = anchor.getBoundingClientRect();
    var felt = table.getBoundingClientRect();
    var width = bubble.offsetWidth;
    var middle = at.left - box.left + at.width / 2;
    var left = Math.max(4, Math.min(middle - width / 2, box.width - width - 4));
    var below = anchor !== table && at.top + at.height / 2 < felt.top + felt.height / 2;
    bubble.classList.toggle("is-below", below);
    bubble.style.left = left + "px";
    bubble.style.top = (below ? at.bottom - box.top - 6 : at.top - box.top - bubble.offsetHeight + 6) + "px";
    bubble.style.setProperty("--tail", Math.max(12, Math.min(width - 12, middle - left)) + "px");
  }

  function speakerName(bubble) {
    var seat = seatOf(bubble);
    var name = seat && $(".seat-name", seat);
    return name ? name.textContent.trim() : "";
  }

  function announce(text) {
    var announcer = document.getElementById("announcer");
    if (announcer && text) { announcer.textContent = text; }
  }

  function showBubbles() {
    $$("#chat-bubbles .chat-bubble:not([data-shown])").forEach(function (bubble) {
      bubble.dataset.shown = "true";
      // One bubble a seat: the newest replaces the one before it.
      $$('#chat-bubbles .chat-bubble[data-shown][data-chat-seat="' + bubble.dataset.chatSeat + '"]')
        .forEach(function (older) { if (older !== bubble) { older.remove(); } });
      var name = speakerName(bubble);
      var label = bubble.dataset.label || bubble.textContent;
      announce(name ? name + ": " + label : label);
      place(bubble);
      window.setTimeout(function () { bubble.remove(); }, BUBBLE_MS);
    });
    // A new frame moves the seats: the bubbles follow them.
    $$("#chat-bubbles .chat-bubble[data-shown]").forEach(place);
  }

  document.addEventListener("htmx:wsAfterMessage", showBubbles);
  window.addEventListener("resize", showBubbles);

  // The people panel: its list comes from the server, then the dialog opens over the table. ---

  document.addEventListener("htmx:afterSwap", function (event) {
    var dialog = document.getElementById("chat-people");
    if (!dialog || !event.detail || !event.detail.requestConfig) { return; }
    var asked = event.detail.requestConfig.elt;
    if (asked && asked.id === "chat-people-open" && !dialog.open && dialog.showModal) {
      dialog.showModal();
    }
  });

  // A refused mute or report comes back with status 400: its panel says why.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "chat-people-body" && event.detail.xhr.status === 400) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
})();
