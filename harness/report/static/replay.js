// Betsy Arena replays: step through a game's positions with the buttons, the slider, a click on a
// move, or the keys (left/right arrow, Home, End). Each .replay holds its frames as JSON
// ({b: board, c: column of the move or 0, t: caption, m: the losing move's mark or ""}); every text
// goes in with textContent.
"use strict";
(function () {
  var replays = [];
  var active = null;

  function setup(root) {
    var data = root.querySelector("script.frames");
    if (!data) {
      return null;
    }
    var frames = JSON.parse(data.textContent);
    var svg = root.querySelector("svg.board");
    var cells = svg.querySelectorAll(".cell");
    var lastcol = svg.querySelector(".lastcol");
    var rotation = svg.querySelector(".rotation");
    var losing = svg.querySelectorAll(".losing");
    var pitch = Number(svg.getAttribute("data-pitch"));
    var left = Number(svg.getAttribute("data-left"));
    var caption = root.querySelector(".caption");
    var counter = root.querySelector(".counter");
    var scrub = root.querySelector("input.scrub");
    var rows = document.querySelectorAll("tr[data-step][data-replay='" + root.id + "']");
    var panel = root.querySelector(".moves-panel");
    var step = -1;

    function reveal(row) {
      // Scroll the list of moves (not the page) so that the current move shows, below the heads.
      var box = panel.getBoundingClientRect();
      var head = panel.querySelector("thead");
      var top = box.top + (head ? head.getBoundingClientRect().height : 0);
      var place = row.getBoundingClientRect();
      if (place.top < top) {
        panel.scrollTop -= top - place.top;
      } else if (place.bottom > box.bottom) {
        panel.scrollTop += place.bottom - box.bottom;
      }
    }

    function show(wanted) {
      var k = Math.max(0, Math.min(frames.length - 1, wanted));
      var board = frames[k].b;
      var before = k > 0 ? frames[k - 1].b : board;
      for (var i = 0; i < cells.length; i++) {
        var ch = board.charAt(i);
        var name = "cell " + (ch === "x" ? "x" : ch === "o" ? "o" : "e");
        if (ch !== before.charAt(i)) {
          name += " changed";
        }
        cells[i].setAttribute("class", name);
      }
      var column = frames[k].c;
      if (column) {
        lastcol.setAttribute("x", String(left + (Math.abs(column) - 1) * pitch));
        lastcol.setAttribute("visibility", "visible");
      } else {
        lastcol.setAttribute("visibility", "hidden");
      }
      if (rotation) {
        rotation.setAttribute("x", String(left + (Math.abs(column) - 0.5) * pitch));
        rotation.setAttribute("visibility", column < 0 ? "visible" : "hidden");
      }
      var mark = frames[k].m || "";
      for (var m = 0; m < losing.length; m++) {
        losing[m].setAttribute("visibility", mark ? "visible" : "hidden");
        if (losing[m].tagName.toLowerCase() === "text") {
          losing[m].textContent = mark;
        }
      }
      caption.textContent = frames[k].t;
      counter.textContent = "ply " + k + " / " + (frames.length - 1);
      scrub.value = String(k);
      for (var r = 0; r < rows.length; r++) {
        var current = Number(rows[r].getAttribute("data-step")) === k;
        rows[r].classList.toggle("current", current);
        if (current && panel && panel.contains(rows[r])) {
          reveal(rows[r]);
        }
      }
      root.setAttribute("data-step", String(k));
      step = k;
    }

    function go(where) {
      var to = { first: 0, prev: step - 1, next: step + 1, last: frames.length - 1 }[where];
      show(to);
    }

    var replay = { root: root, go: go, show: show };
    root.querySelectorAll("button[data-go]").forEach(function (button) {
      button.addEventListener("click", function () {
        active = replay;
        go(button.getAttribute("data-go"));
      });
    });
    scrub.max = String(frames.length - 1);
    scrub.addEventListener("input", function () {
      active = replay;
      show(Number(scrub.value));
    });
    rows.forEach(function (row) {
      row.addEventListener("click", function () {
        active = replay;
        show(Number(row.getAttribute("data-step")));
      });
    });
    root.addEventListener("focusin", function () {
      active = replay;
    });
    root.addEventListener("click", function () {
      active = replay;
    });
    var start = Number(root.getAttribute("data-start") || "0");
    show(start < 0 ? frames.length - 1 : start);
    return replay;
  }

  function openTarget() {
    // A link to a replay inside closed <details> (validation's strength games) opens them.
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") {
        node.open = true;
      }
    }
    var replay = target && replays.filter(function (r) { return target.contains(r.root); })[0];
    if (replay) {
      active = replay;
    }
  }

  document.querySelectorAll(".replay").forEach(function (root) {
    var replay = setup(root);
    if (replay) {
      replays.push(replay);
    }
  });
  if (replays.length === 1) {
    active = replays[0];
  }
  openTarget();
  window.addEventListener("hashchange", openTarget);

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (!active || event.altKey || event.ctrlKey || event.metaKey ||
        (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT"))) {
      return;
    }
    var where = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[event.key];
    if (where) {
      event.preventDefault();
      active.go(where);
    }
  });
})();
