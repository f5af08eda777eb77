// The player's hand tools: the hand sorted by rank or by combination (remembered on this device),
// dragging across cards to select or unselect several at once (a finger on a phone, or the
// mouse), a double tap on the middle of the table to play the selected cards, and the keyboard.
// The hand comes with every frame; these only arrange it and press the page's own buttons.
(function () {
  "use strict";

  var ORDER_KEY = "gandengyan.handOrder";
  var RANKS = "3456789TJQKA2";

  function rankOf(code) {
    // A card of a game with two decks carries its deck after a dot (上海斗地主's "As.2").
    code = code.split(".")[0];
    if (code === "BJ") { return RANKS.length; }
    if (code === "RJ") { return RANKS.length + 1; }
    return RANKS.indexOf(code.charAt(0));
  }

  function handCards() {
    return Array.prototype.slice.call(document.querySelectorAll("#hand-form .hand .card[data-card]"));
  }

  function order() {
    return window.localStorage.getItem(ORDER_KEY) === "combo" ? "combo" : "rank";
  }

  // By combination: the ranks held most often first (bombs, then triples, pairs, singles), each
  // group from the lowest rank; by rank: as the server deals them, from the lowest.
  function arrange() {
    var cards = handCards();
    if (!cards.length) { return; }
    var counts = {};
    cards.forEach(function (card) {
      var rank = rankOf(card.dataset.card);
      counts[rank] = (counts[rank] || 0) + 1;
    });
    var byCombo = order() === "combo";
    var placed = cards.map(function (card, index) {
      var rank = rankOf(card.dataset.card);
      return { card: card, rank: rank, count: byCombo ? counts[rank] : 0, index: index };
    });
    placed.sort(function (a, b) {
      return (b.count - a.count) || (a.rank - b.rank) || (a.index - b.index);
    });
    var hand = cards[0].parentNode;
    placed.forEach(function (item) { hand.appendChild(item.card); });
    var button = document.getElementById("hand-order");
    if (button) {
      button.setAttribute("aria-pressed", byCombo ? "true" : "false");
      button.textContent = byCombo ? button.dataset.textCombo : button.dataset.textRank;
    }
  }

  // Dragging: the first card's new state (selected or not) goes to every card passed over.
  var drag = null;
  var swallowClick = false;

  function boxOf(card) {
    return card ? card.querySelector('input[name="cards"]') : null;
  }

  function cardAt(x, y) {
    var elt = document.elementFromPoint(x, y);
    return elt && elt.closest ? elt.closest("#hand-form .hand .card[data-card]") : null;
  }

  document.addEventListener("pointerdown", function (event) {
    if (event.button !== 0) { return; }
    var card = event.target.closest ? event.target.closest("#hand-form .hand .card[data-card]") : null;
    var box = boxOf(card);
    if (!box) { return; }
    drag = { first: card, state: !box.checked, moved: false };
  });

  document.addEventListener("pointermove", function (event) {
    if (!drag) { return; }
    var card = cardAt(event.clientX, event.clientY);
    if (!card || (card === drag.first && !drag.moved)) { return; }
    if (!drag.moved) {
      drag.moved = true;
      boxOf(drag.first).checked = drag.state;
    }
    var box = boxOf(card);
    if (box) { box.checked = drag.state; }
  });

  function endDrag() {
    if (drag && drag.moved) { swallowClick = true; }
    drag = null;
  }
  document.addEventListener("pointerup", endDrag);
  document.addEventListener("pointercancel", function () { drag = null; });

  // The click that ends a drag would toggle the card it ends on once more.
  document.addEventListener("click", function (event) {
    if (!swallowClick) { return; }
    swallowClick = false;
    if (event.target.closest && event.target.closest("#hand-form .hand")) { event.preventDefault(); }
  }, true);

  document.addEventListener("dblclick", function (event) {
    var table = document.getElementById("table");
    if (!table || table.dataset.myTurn !== "true") { return; }
    if (!event.target.closest || !event.target.closest("#table .board")) { return; }
    var play = document.querySelector('#hand-form [data-action="play"]');
    var chosen = document.querySelectorAll('#hand-form input[name="cards"]:checked');
    if (play && chosen.length) { play.click(); }
  });

  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest("#hand-order")) { return; }
    window.localStorage.setItem(ORDER_KEY, order() === "combo" ? "rank" : "combo");
    arrange();
  });

  // The keyboard: the left and right arrows move between the cards, space chooses one (the
  // checkbox's own key), Enter plays, P passes and H asks for a hint. Keys typed into a field
  // are left alone.
  function press(selector) {
    var button = document.querySelector(selector);
    if (button) { button.click(); }
    return Boolean(button);
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) { return; }
    var target = event.target;
    var typing = target && (target.isContentEditable || target.tagName === "TEXTAREA" ||
      target.tagName === "SELECT" || (target.tagName === "INPUT" && target.type !== "checkbox"));
    if (typing || (target && target.closest && target.closest("dialog"))) { return; }
    var boxes = handCards().map(boxOf);
    var at = boxes.indexOf(document.activeElement);
    var key = event.key;
    if ((key === "ArrowRight" || key === "ArrowLeft") && boxes.length) {
      var step = key === "ArrowRight" ? 1 : -1;
      var next = at < 0 ? (step > 0 ? 0 : boxes.length - 1) : (at + step + boxes.length) % boxes.length;
      boxes[next].focus();
      event.preventDefault();
    } else if (key === "Enter" && at >= 0) {
      if (press('#hand-form [data-action="play"]')) { event.preventDefault(); }
    } else if ((key === "p" || key === "P") && press('#hand-form [data-action="pass"]')) {
      event.preventDefault();
    } else if ((key === "h" || key === "H") && press('#hand-form [data-action="hint"]')) {
      event.preventDefault();
    }
  });

  // A frame replaces the hand: the card that had the keyboard's focus gets it back.
  var focused = null;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var active = document.activeElement;
    focused = active && active.name === "cards" && active.closest("#hand-form") ? active.value : null;
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    arrange();
    if (focused === null) { return; }
    var box = document.querySelector('#hand-form input[name="cards"][value="' + focused + '"]');
    if (box) { box.focus({ preventScroll: true }); }
    focused = null;
  });
  document.addEventListener("DOMContentLoaded", arrange);
})();
