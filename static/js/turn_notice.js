// The table's changes and the player's turn, noticed: the sound of each change the table shows
// (a play, a pass, a bomb, the deal, the end of a game) and its animation (data-fresh on the
// frame that first shows it, for the stylesheet), a sound and a vibration when it becomes the
// player's turn, and, while the tab is in the background, a title and an icon that flash until
// the player looks. The server says which sound a change makes (the frame's data-sound, and
// data-sound-at: where in the game it was made); the player's switch is kept on the server.
(function () {
  "use strict";

  var FLASH_MS = 900;
  var TURN_AFTER_MS = 250;  // the play that made it the player's turn is heard first

  var notice = {
    page: null,
    heardAt: null,      // data-sound-at of the change last heard; null until the first frame
    myTurn: false,
    audio: {},
    played: [],         // the sounds played, newest last (the browser tests read it)
    flashTimer: null,
    title: document.title,
  };
  window.tableNotice = notice;

  function soundsOn() {
    return notice.page !== null && notice.page.dataset.soundsOn === "true";
  }

  function play(name) {
    if (!name || !soundsOn()) { return; }
    var audio = notice.audio[name];
    if (!audio) {
      audio = new Audio(notice.page.dataset.sounds + name + ".wav");
      audio.preload = "auto";
      notice.audio[name] = audio;
    }
    notice.played.push(name);
    audio.currentTime = 0;
    // Browsers refuse sound before the first click on the page: nothing to do but stay quiet.
    var started = audio.play();
    if (started && started.catch) { started.catch(function () {}); }
  }

  function setIcon(href) {
    var icon = document.querySelector('link[rel="icon"]');
    if (icon && href && icon.getAttribute("href") !== href) { icon.setAttribute("href", href); }
  }

  function stopFlashing() {
    if (notice.flashTimer === null) { return; }
    window.clearInterval(notice.flashTimer);
    notice.flashTimer = null;
    document.title = notice.title;
    setIcon(notice.page && notice.page.dataset.icon);
  }

  function startFlashing() {
    if (notice.flashTimer !== null || !notice.page) { return; }
    var lit = false;
    notice.title = document.title;
    var flash = function () {
      lit = !lit;
      document.title = lit ? notice.page.dataset.turnTitle + " · " + notice.title : notice.title;
      setIcon(lit ? notice.page.dataset.iconTurn : notice.page.dataset.icon);
    };
    flash();
    notice.flashTimer = window.setInterval(flash, FLASH_MS);
  }

  function announce(text) {
    var announcer = document.getElementById("announcer");
    if (announcer && text) { announcer.textContent = text.trim(); }
  }

  function turnBegins() {
    announce(notice.page.dataset.turnTitle);
    window.setTimeout(function () { play("turn"); }, TURN_AFTER_MS);
    if (soundsOn() && navigator.vibrate) { navigator.vibrate([120, 60, 120]); }
    if (document.visibilityState !== "visible") { startFlashing(); }
  }

  function afterFrame() {
    var table = document.getElementById("table");
    if (!table || !notice.page) { return; }
    var at = table.dataset.soundAt || "";
    var myTurn = table.dataset.myTurn === "true";
    if (notice.heardAt === null) {
      // The page's first frame: the table as it is, not a change.
      notice.heardAt = at;
      notice.myTurn = myTurn;
      return;
    }
    if (at && at !== notice.heardAt) {
      play(table.dataset.sound);
      var ended = document.getElementById("settlement-title");
      if (ended && (table.dataset.sound === "win" || table.dataset.sound === "lose")) {
        announce(ended.textContent);
      }
      // Seen as well as heard: the stylesheet animates this frame's newest change, once.
      // The frame was morphed into the old table: a style computed between the two marks
      // makes the browser start the animations again.
      delete table.dataset.fresh;
      void table.offsetWidth;
      table.dataset.fresh = table.dataset.sound || "change";
    }
    notice.heardAt = at || notice.heardAt;
    if (myTurn && !notice.myTurn) { turnBegins(); }
    if (!myTurn) { stopFlashing(); }
    notice.myTurn = myTurn;
  }

  // The sounds' switch (switches.js) says when the player turns them on or off.
  document.addEventListener("switch:changed", function (event) {
    if (event.detail.field === "sounds_on" && notice.page) {
      notice.page.dataset.soundsOn = event.detail.on ? "true" : "false";
    }
  });

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { stopFlashing(); }
  });
  window.addEventListener("focus", stopFlashing);
  document.addEventListener("htmx:wsAfterMessage", afterFrame);
  document.addEventListener("DOMContentLoaded", function () {
    notice.page = document.querySelector(".table-page[data-sounds]");
    afterFrame();
  });
})();
