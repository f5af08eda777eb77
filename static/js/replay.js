// A finished game's replay, stepped in the browser: every step is in the page (the
// replay-frames JSON), so stepping needs no server and works offline. The cards are clones of
// the server's own card HTML (the replay-cards template), so they look as at the table. Without
// this script the page still works: its buttons and step list are links to ?step=N.
(function () {
  "use strict";

  var root = document.querySelector("[data-replay]");
  if (!root) { return; }
  var frames = JSON.parse(document.getElementById("replay-frames").textContent);
  var names = JSON.parse(document.getElementById("replay-names").textContent);
  var cardTemplate = document.getElementById("replay-cards");
  var dealText = document.querySelector("[data-deal-text]").textContent;
  var last = frames.length - 1;
  var slider = root.querySelector("[data-slider]");
  var playButton = root.querySelector("[data-play]");
  var speed = root.querySelector("[data-speed]");
  var label = root.querySelector("[data-step-label]");
  var stepLinks = document.querySelectorAll("[data-step-list] li");

  var replay = {
    step: Number(root.dataset.step) || 0,
    timer: null,
  };
  window.replay = replay;  // the browser tests read where it is

  var faces = {};
  Array.prototype.forEach.call(cardTemplate.content.querySelectorAll("[data-card]"), function (card) {
    faces[card.dataset.card] = card;
  });

  function cards(notation) {
    var fragment = document.createDocumentFragment();
    if (!notation) { return fragment; }
    notation.split(" ").forEach(function (code) {
      var face = faces[code];
      if (face) { fragment.appendChild(face.cloneNode(true)); }
    });
    return fragment;
  }

  function fill(element, content) {
    element.replaceChildren(content);
  }

  function stepText(frame) {
    return frame.seat === null ? dealText : names[frame.seat] + " " + frame.text;
  }

  function setNav(name, target) {
    var link = root.querySelector('[data-nav="' + name + '"]');
    var enabled = target !== null;
    link.toggleAttribute("aria-disabled", !enabled);
    if (enabled) {
      link.setAttribute("href", "?step=" + target + "#replay");
      link.dataset.target = String(target);
    } else {
      link.removeAttribute("href");
      delete link.dataset.target;
    }
  }

  function show(number, quietly) {
    number = Math.max(0, Math.min(last, number));
    var frame = frames[number];
    replay.step = number;
    root.dataset.step = String(number);
    root.querySelectorAll("[data-seat]").forEach(function (box) {
      var seat = Number(box.dataset.seat);
      fill(box.querySelector("[data-hand]"), cards(frame.hands[seat]));
      box.querySelector("[data-count]").textContent = frame.hands[seat] ? frame.hands[seat].split(" ").length : 0;
      box.querySelector("[data-said]").textContent = frame.said[seat];
      box.querySelector("[data-role]").textContent = frame.roles[seat];
      box.toggleAttribute("data-to-move", frame.to_move === seat);
      box.toggleAttribute("data-winner", frame.winner === seat);
    });
    var board = frame.board;
    root.querySelector("[data-board-who]").textContent = board ? names[board.seat] + " · " + board.label : "";
    fill(root.querySelector("[data-board-cards]"), cards(board ? board.cards : ""));
    var facts = document.createDocumentFragment();
    frame.facts.forEach(function (fact) {
      var row = document.createElement("div");
      row.dataset.fact = fact.key;
      var term = document.createElement("dt");
      term.textContent = fact.label;
      var value = document.createElement("dd");
      value.textContent = fact.value;
      row.append(term, value);
      facts.appendChild(row);
    });
    fill(root.querySelector("[data-facts]"), facts);
    var piles = document.createDocumentFragment();
    frame.piles.forEach(function (pile) {
      var row = document.createElement("div");
      row.className = "replay-pile";
      row.dataset.pile = pile.key;
      var name = document.createElement("span");
      name.className = "replay-pile-label";
      name.textContent = pile.label;
      var held = document.createElement("span");
      held.className = "replay-pile-cards";
      if (pile.cards) { held.appendChild(cards(pile.cards)); } else { held.textContent = "—"; }
      row.append(name, " ", held);
      piles.appendChild(row);
    });
    fill(root.querySelector("[data-piles]"), piles);
    label.textContent = label.dataset.template.replace("{n}", number).replace("{m}", last);
    root.querySelector("[data-action-text]").textContent = stepText(frame);
    slider.value = String(number);
    setNav("first", number > 0 ? 0 : null);
    setNav("previous", number > 0 ? number - 1 : null);
    setNav("next", number < last ? number + 1 : null);
    setNav("last", number < last ? last : null);
    stepLinks.forEach(function (item, index) {
      if (index === number) { item.setAttribute("aria-current", "step"); } else { item.removeAttribute("aria-current"); }
    });
    if (!quietly) { history.replaceState(null, "", "?step=" + number + "#replay"); }
    if (number === last) { pause(); }
  }

  function pause() {
    if (replay.timer !== null) {
      clearInterval(replay.timer);
      replay.timer = null;
    }
    playButton.textContent = playButton.dataset.playLabel;
    playButton.setAttribute("aria-pressed", "false");
  }

  function play() {
    if (replay.step === last) { show(0); }
    pause();
    replay.timer = setInterval(function () { show(replay.step + 1); }, Number(speed.value));
    playButton.textContent = playButton.dataset.pauseLabel;
    playButton.setAttribute("aria-pressed", "true");
  }

  function toggle() {
    if (replay.timer === null) { play(); } else { pause(); }
  }

  root.querySelectorAll("[data-nav]").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      if (link.dataset.target !== undefined) { pause(); show(Number(link.dataset.target)); }
    });
  });
  document.querySelectorAll("[data-goto]").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      pause();
      show(Number(link.dataset.goto));
      root.scrollIntoView({ block: "start" });
    });
  });
  slider.addEventListener("input", function () { pause(); show(Number(slider.value)); });
  playButton.addEventListener("click", toggle);
  speed.addEventListener("change", function () { if (replay.timer !== null) { play(); } });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    var target = event.target;
    // The slider steps with its own keys; a field keeps its keys; a button its space.
    if (target === slider && event.key !== " ") { return; }
    if (target !== slider && target.closest && target.closest("input, select, textarea")) { return; }
    if (event.key === " " && target.closest && target.closest("button")) { return; }
    var to = null;
    if (event.key === "ArrowRight") { to = replay.step + 1; }
    else if (event.key === "ArrowLeft") { to = replay.step - 1; }
    else if (event.key === "Home") { to = 0; }
    else if (event.key === "End") { to = last; }
    else if (event.key === " ") { event.preventDefault(); toggle(); return; }
    else { return; }
    event.preventDefault();
    pause();
    show(to);
  });

  // The copy button: the Clipboard API where the page may use it, else the text selected in
  // its field for the reader to copy.
  var share = document.querySelector("[data-share]");
  if (share) {
    var field = share.querySelector("[data-share-url]");
    var copy = share.querySelector("[data-copy-link]");
    var status = share.querySelector("[data-copied]");
    copy.hidden = false;
    copy.addEventListener("click", function () {
      function fallback() {
        field.focus();
        field.select();
        var copied = false;
        try { copied = document.execCommand("copy"); } catch (error) { copied = false; }
        status.textContent = copied ? status.dataset.done : status.dataset.failed;
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(function () {
          status.textContent = status.dataset.done;
        }, fallback);
      } else {
        fallback();
      }
    });
  }

  playButton.hidden = false;
  slider.hidden = false;
  root.querySelector("[data-speed-box]").hidden = false;
  show(replay.step, true);
})();
