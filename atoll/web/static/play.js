/* atoll serve: the page of play. Every text of the spec goes into the page
   as text (textContent); only the pictures, drawn and escaped by the server,
   go in as SVG. */
(function () {
  "use strict";
  var config = JSON.parse(document.body.dataset.config || "{}");
  var gid = null, view = null, selected = [];

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") { e.textContent = attrs[k]; } else { e.setAttribute(k, attrs[k]); }
    });
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) { continue; }
      e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return e;
  }
  function clear(e) { while (e.firstChild) { e.removeChild(e.firstChild); } return e; }

  function showError(text) {
    var box = $("error");
    box.textContent = text || "";
    box.hidden = !text;
  }

  function call(method, url, body, raw) {
    var opts = { method: method, headers: {} };
    if (body !== undefined) {
      opts.body = raw ? body : JSON.stringify(body);
      opts.headers["Content-Type"] = raw ? "application/json" : "application/json";
    }
    return fetch(url, opts).then(function (r) {
      return r.json().catch(function () { return { error: "the server's answer is not JSON" }; })
        .then(function (d) {
          if (!r.ok) { throw new Error(d.error || ("HTTP " + r.status)); }
          return d;
        });
    });
  }

  function update(d) {
    if (d.id) { gid = d.id; }
    view = d.view;
    selected = [];
    showError("");
    render();
  }
  function fail(e) { showError(e.message); }

  function act(path, body) {
    return call("POST", "/api/games/" + gid + "/" + path, body || {}).then(update).catch(fail);
  }

  // ------------------------------------------------------------ drawing
  function render() {
    var v = view;
    document.title = v.title + " - atoll serve";
    $("title").textContent = v.title;
    $("headline").textContent = v.headline + " · " + v.players + " players, seed " + v.seed;
    $("undo").disabled = !v.can_undo;
    $("redo").disabled = !v.can_redo;
    $("save").setAttribute("href", "/api/games/" + gid + "/save");
    $("problem").textContent = v.problem;
    $("problem").hidden = !v.problem;
    renderEnd(v);
    renderBoard(v);
    renderState(v);
    renderMoves(v);
    renderRules(v);
    renderLog(v);
    $("why-out").hidden = true;
  }

  function renderEnd(v) {
    var box = clear($("end"));
    box.hidden = !v.end;
    if (!v.end) { return; }
    var e = v.end;
    box.appendChild(el("p", { "class": "end-head", text: "Game over: " + e.winners_text }));
    box.appendChild(el("p", { "class": "end-how",
      text: e.how + (e.cites.length ? " (rulebook: " + e.cites.join("; ") + ")" : "") }));
    if (e.scores.some(function (s) { return s !== 0; })) {
      box.appendChild(el("p", { "class": "end-scores", text: "scores: " + e.scores.map(function (s, p) {
        return "player " + p + " " + s; }).join(", ") }));
    }
  }

  function renderBoard(v) {
    var box = clear($("board"));
    v.pictures.forEach(function (pic) {
      var fig = el("figure", { "class": "picture", "data-key": pic.key });
      fig.innerHTML = pic.svg;     // drawn and escaped by the server (atoll.docgen.svg)
      fig.appendChild(el("figcaption", { text: pic.caption }));
      box.appendChild(fig);
    });
    var marks = {};
    v.groups.forEach(function (g) { g.moves.forEach(function (m) {
      m.marks.forEach(function (k) { marks[k] = true; }); }); });
    box.querySelectorAll(".atoll-hit").forEach(function (t) {
      var k = t.getAttribute("data-mark");
      if (marks[k]) { t.classList.add("target"); }
      t.addEventListener("click", function () { clickMark(k); });
    });
    $("selection").textContent = "";
  }

  function naming(m) {
    return selected.every(function (k) { return m.marks.indexOf(k) >= 0; });
  }

  function clickMark(k) {
    if (!view || view.deciding === null) { return; }
    var i = selected.indexOf(k);
    if (i >= 0) { selected.splice(i, 1); } else { selected.push(k); }
    var hits = [];
    view.groups.forEach(function (g) { g.moves.forEach(function (m) { if (naming(m)) { hits.push(m); } }); });
    document.querySelectorAll("#board .atoll-hit").forEach(function (t) {
      t.classList.toggle("selected", selected.indexOf(t.getAttribute("data-mark")) >= 0);
    });
    var words = selected.map(function (s) { return s.replace(/^(pos|node):/, ""); }).join(" + ");
    if (selected.length && hits.length === 1) {
      $("selection").textContent = "playing the one move that names " + words;
      act("move", { move: hits[0].index });
      return;
    }
    if (selected.length && hits.length === 0) {
      $("selection").textContent = "No legal move names " + words +
        ". Ask why below (the values of a move that names it are filled in).";
      prefillWhyNot(selected);
      selected = [];
      document.querySelectorAll("#board .atoll-hit.selected").forEach(function (t) {
        t.classList.remove("selected"); });
      renderMoves(view);
      return;
    }
    $("selection").textContent = selected.length ? hits.length + " moves name " + words +
      ": pick one below, or click another place" : "";
    renderMoves(view);
  }

  function renderState(v) {
    var box = clear($("state"));
    var s = v.state;
    if (s.shared.length) {
      var t = el("table", { "class": "shared" });
      s.shared.forEach(function (r) {
        t.appendChild(el("tr", {}, el("th", { text: r.name }), el("td", { text: r.text })));
      });
      box.appendChild(t);
    }
    s.owned.forEach(function (o) {
      var t = el("table", { "class": "owned" }, el("caption", { text: o.name + " (by owner)" }));
      o.owners.forEach(function (r) {
        t.appendChild(el("tr", {}, el("th", { text: "player " + r.player + (r.player === v.viewer ? " (you)" : "") }),
          el("td", { text: r.keys.length + (r.keys.length ? ": " + r.keys.join(", ") : "") })));
      });
      box.appendChild(t);
    });
    if (s.columns.length) {
      var head = el("tr", {}, el("th", { text: "" }));
      s.columns.forEach(function (c) { head.appendChild(el("th", { text: c })); });
      var pt = el("table", { "class": "players" }, head);
      s.rows.forEach(function (r) {
        var tr = el("tr", r.you ? { "class": "you" } : {},
          el("th", { text: "player " + r.player + (r.you ? " (you)" : "") }));
        r.cells.forEach(function (c) { tr.appendChild(el("td", { text: c })); });
        pt.appendChild(tr);
      });
      box.appendChild(pt);
    }
    box.appendChild(el("p", { "class": "flags",
      text: s.flags.length ? "flags set: " + s.flags.join(", ") : "no flag set" }));
  }

  function renderMoves(v) {
    var box = clear($("moves"));
    if (v.deciding === null) {
      box.appendChild(el("p", { text: v.terminal ? "The game is over." : "Not your move." }));
      return;
    }
    if (v.seat === null) {
      box.appendChild(el("p", { "class": "seat-note", text: "Player " + v.deciding + " chooses (hot-seat)." }));
    }
    v.groups.forEach(function (g) {
      var shown = g.moves.filter(naming);
      if (!shown.length) { return; }
      var sec = el("section", { "class": "group", "data-rule": g.rule },
        el("h3", {}, el("code", { text: g.rule }), " ", el("span", { "class": "count", text: "(" + shown.length + ")" })),
        el("p", { "class": "summary", text: (g.summary || "(no description)") +
          (g.cites.length ? " (rulebook: " + g.cites.join("; ") + ")" : "") }));
      var list = el("ul", { "class": "move-list" });
      shown.forEach(function (m) {
        var b = el("button", { type: "button", "class": "move", "data-index": String(m.index),
          "data-id": m.id, text: m.label });
        b.addEventListener("click", function () { act("move", { move: m.index }); });
        var w = el("button", { type: "button", "class": "why", "data-index": String(m.index),
          title: "why is this move allowed?", text: "why?" });
        w.addEventListener("click", function () {
          call("POST", "/api/games/" + gid + "/why", { move: m.index }).then(function (d) {
            var out = $("why-out"); out.textContent = d.text; out.hidden = false;
          }).catch(fail);
        });
        list.appendChild(el("li", {}, b, " ", w));
      });
      sec.appendChild(list);
      box.appendChild(sec);
    });
  }

  function renderRules(v) {
    var sel = $("whynot-rule");
    var keep = sel.value;
    clear(sel);
    v.rules.forEach(function (r) {
      sel.appendChild(el("option", { value: r.name,
        text: r.name + "(" + r.params.map(function (p) { return p[0] + ": " + p[1]; }).join(", ") + ")" }));
    });
    if (keep && v.rules.some(function (r) { return r.name === keep; })) { sel.value = keep; }
  }

  function prefillWhyNot(marks) {
    var pos = marks.filter(function (k) { return k.indexOf("pos:") === 0; })
      .map(function (k) { return "(" + k.slice(4) + ")"; });
    var nodes = marks.filter(function (k) { return k.indexOf("node:") === 0; })
      .map(function (k) { return k.slice(5); });
    var rule = view.rules.find(function (r) {
      return r.params.some(function (p) { return pos.length ? p[1] === "Pos" : nodes.length && p[1] === "str"; });
    });
    if (!rule) { return; }
    $("whynot-rule").value = rule.name;
    var vals = pos.length ? pos : nodes;
    $("whynot-values").value = rule.params.map(function (p) {
      var fits = pos.length ? p[1] === "Pos" : p[1] === "str";
      return p[0] + "=" + (fits && vals.length ? vals.shift() : "?");
    }).join(", ");
  }

  function renderLog(v) {
    var box = clear($("log"));
    v.log.slice().reverse().forEach(function (e) {
      var li = el("li", { value: String(e.n), "class": e.agent ? "agent" : "person" },
        el("span", { "class": "who", text: e.who ? e.who + ": " : "" }),
        el("code", { text: e.text }),
        e.cites.length ? el("span", { "class": "cites", text: " [" + e.cites.join("; ") + "]" }) : null);
      if (e.changes.length) {
        var ul = el("ul", { "class": "changes" });
        e.changes.forEach(function (c) { ul.appendChild(el("li", { text: c })); });
        li.appendChild(ul);
      }
      box.appendChild(li);
    });
  }

  // ------------------------------------------------------------ starting
  function parseOptions(text) {
    var out = {};
    text.split(",").forEach(function (part) {
      part = part.trim();
      if (!part) { return; }
      var i = part.indexOf("=");
      if (i < 0) { throw new Error("options are key=value, separated by commas: not " + part); }
      out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
    });
    return out;
  }

  function seats(n, chosen) {
    var sel = clear($("ng-seat"));
    for (var p = 0; p < n; p++) { sel.appendChild(el("option", { value: String(p), text: "player " + p })); }
    sel.appendChild(el("option", { value: "all", text: "every player (hot-seat)" }));
    sel.value = String(chosen);
  }

  function newGame(body) {
    return call("POST", "/api/games", body).then(function (d) {
      update(d);
      $("ng-players").value = String(view.players);
      seats(view.players, view.seat === null ? "all" : view.seat);
      $("ng-seed").value = String(view.seed);
      var opts = Object.keys(view.options).map(function (k) { return k + "=" + view.options[k]; });
      $("ng-options").placeholder = opts.join(", ") || "key=value, ...";
    }).catch(fail);
  }

  $("new-game").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var body = { spec: $("ng-spec").value, seed: parseInt($("ng-seed").value || "0", 10) };
    var seat = $("ng-seat").value;
    body.seat = seat === "all" ? "all" : parseInt(seat, 10);
    if ($("ng-players").value) { body.players = parseInt($("ng-players").value, 10); }
    try { body.options = parseOptions($("ng-options").value); } catch (e) { showError(e.message); return; }
    newGame(body);
  });
  $("undo").addEventListener("click", function () { act("undo"); });
  $("redo").addEventListener("click", function () { act("redo"); });
  $("load-file").addEventListener("change", function () {
    var f = $("load-file").files[0];
    if (!f) { return; }
    f.text().then(function (text) {
      return call("POST", "/api/games/" + gid + "/load", text, true);
    }).then(update).catch(fail).then(function () { $("load-file").value = ""; });
  });
  $("whynot").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var text = $("whynot-rule").value + "(" + $("whynot-values").value + ")";
    call("POST", "/api/games/" + gid + "/why-not", { text: text }).then(function (d) {
      $("whynot-out").textContent = d.text;
    }).catch(function (e) { $("whynot-out").textContent = e.message; });
  });

  call("GET", "/api/specs").then(function (d) {
    var sel = clear($("ng-spec"));
    d.specs.forEach(function (s) { sel.appendChild(el("option", { value: s, text: s })); });
    var first = d.default || d.specs[0];
    sel.value = first;
    seats(1, config.seat === undefined ? 0 : config.seat);
    var body = { spec: first, seat: config.seat };
    return newGame(body);
  }).catch(fail);
})();
