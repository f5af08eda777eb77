// The player's hand tools: the hand sorted by rank or by combination (remembered on this device),
// dragging across cards to select or unselect several at once (a finger on a phone, or the
// mouse), and a double tap on the middle of the table to play the selected cards. The hand comes
// with every frame; these only arrange it and press the page's own buttons.
(function () {
  "use strict";

  var ORDER_KEY = "gandengyan.handOrder";
  var RANKS = "3456789TJQKA2";

  function rankOf(code) {
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

  document.addEventListener("htmx:wsAfterMessage", arrange);
  document.addEventListener("DOMContentLoaded", arrange);
})();
