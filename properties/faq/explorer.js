// The rules explorer (properties/faq/explorer.py writes its data): one parting game at a
// time, under the ruling (column 0) and the other reading (column 1), position by position.
// Spec text goes into the page as text (textContent); only the pieces of the tables, which
// table.py escaped, go in as HTML.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("explorer-data").textContent);
  var pieces = data.pieces, tables = data.tables, legals = data.legals, actions = data.actions;
  var games = data.partings, byId = {};
  games.forEach(function (g, i) { byId[g.id] = i; });
  var current = 0, position = 0;
  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function code(text) { return el("code", "", text); }

  // As table.join_html joins the pieces of table.html_parts.
  function tableHtml(i) {
    var t = tables[i], out = ['<div class="table">', pieces[t[0]], "<dl>"];
    t[2].forEach(function (row) {
      out.push(pieces[row[0]], "<dd>");
      if (!row[1].length) out.push("nothing");
      row[1].forEach(function (entry) {
        entry.forEach(function (x) { out.push(pieces[x]); });
      });
      out.push("</dd>");
    });
    out.push("</dl>", t[1] >= 0 ? pieces[t[1]] : "", "</div>");
    return out.join("");
  }

  function names(g) { return ["ruling " + g.ruling, g.reading]; }

  function showGame() {
    var g = games[current];
    $("question").textContent = g.question;
    var r = $("readings");
    r.textContent = "";
    r.append(g.kind + ": the ruling ", code(g.ruling), " against ", code(g.reading),
             ", " + g.players + " players. ");
    var faq = el("a", "", "The FAQ entry");
    faq.href = g.faq;
    r.append(faq, ".");
    var s = $("start");
    s.textContent = "";
    if (g.situation) s.append("From the situation recorded in the replay file; ");
    else if (g.play) s.append("From the deal of seed " + g.seed + " (", code(g.play), "); ");
    else s.append("From a deal z3 chose (its shuffles are in the replay file); ");
    s.append("found by " + g.found_by + ". Replay it: ", code(g.replays[0]), " (the ruling), ",
             code(g.replays[1]), " (the reading).");
    $("slider").max = String(g.steps.length - 1);
    var list = $("timeline");
    list.textContent = "";
    g.steps.forEach(function (step, k) {
      var li = el("li"), b = el("button", "step", step.label);
      b.type = "button";
      if (step.action !== null) b.textContent += ": player " + step.player + " " + step.action;
      if (k === g.part) li.className = "part";
      b.addEventListener("click", function () { go(k); });
      li.append(b);
      list.append(li);
    });
    [0, 1].forEach(function (c) {
      var col = $("col-" + c);
      col.querySelector(".reading").textContent = names(g)[c];
      col.querySelector(".reading-text").textContent = g.texts[c];
      $("table-" + c).querySelector(".reading").textContent = "The table under " + names(g)[c];
    });
  }

  function show() {
    var g = games[current], step = g.steps[position], last = g.steps.length - 1;
    var atPart = position === g.part;
    var root = $("explorer");
    root.dataset.part = atPart ? "yes" : "no";
    root.dataset.position = String(position);
    $("where").textContent = step.label + " (" + (position + 1) + " of " + g.steps.length + ")";
    $("slider").value = String(position);
    $("first").disabled = $("prev").disabled = position === 0;
    $("next").disabled = position === last;
    var marker = $("marker");
    marker.hidden = !(atPart || step.apart);
    marker.textContent = "";
    if (g.parts_by === "deal") {
      marker.textContent = "They part at the deal: the readings deal differently.";
    } else if (atPart && g.parts_by === "legal") {
      marker.textContent = "They part here: the readings allow other actions (marked).";
    } else if (atPart) {
      marker.append("They part here: the same action, ", code(step.action),
                    ", leads to other tables under the two readings (the next step shows them).");
    } else if (step.apart) {
      marker.append("After the parting action ", code(g.steps[g.part].action),
                    ": each table is marked where it differs from the other reading's.");
    }
    showDifferences(g, step);
    var lists = step.columns.map(function (c) {
      return legals[c[1]].map(function (a) { return actions[a]; });
    });
    step.columns.forEach(function (column, c) {
      var col = $("col-" + c);
      $("table-" + c).querySelector(".shown").innerHTML = tableHtml(column[0]);
      var legal = lists[c], other = lists[1 - c];
      col.querySelector(".legal-title").textContent = legal.length
        ? "Player " + column[3] + " may take (" + legal.length + "):"
        : "No legal action: the game is over.";
      var ul = col.querySelector(".legal");
      ul.textContent = "";
      legal.forEach(function (a) {
        var li = el("li");
        li.append(code(a));
        if (other.indexOf(a) < 0) { li.classList.add("only"); li.title = "only under " + names(g)[c]; }
        if (a === step.action) { li.classList.add("taken"); li.title = "taken in this game"; }
        ul.append(li);
      });
      var taken = col.querySelector(".took");
      taken.textContent = "";
      if (step.action !== null) {
        taken.append("Player " + step.player + " takes ", code(step.action),
                     column[2].length ? " — the round ends: " + column[2].join("; ") + "." : ".");
      } else if (position === last && g.parts_by === "legal") {
        taken.textContent = "The game stops here, where the readings part.";
      }
    });
    var items = $("timeline").children;
    for (var i = 0; i < items.length; i++) items[i].classList.toggle("here", i === position);
  }

  function showDifferences(g, step) {
    var box = $("differences");
    box.textContent = "";
    box.hidden = !(step.apart && g.differences.length);
    if (box.hidden) return;
    box.append(el("p", "", "What differs between the two readings' tables:"));
    var scroll = el("div", "scroll"), t = el("table", "state"), head = el("tr");
    head.append(el("th", "", ""), el("th", "", names(g)[0]), el("th", "", names(g)[1]));
    t.append(head);
    g.differences.forEach(function (d) {
      var tr = el("tr");
      tr.append(el("td", "", d[0]), el("td", "", d[1]), el("td", "", d[2]));
      t.append(tr);
    });
    scroll.append(t);
    box.append(scroll);
  }

  function go(k) {
    var n = games[current].steps.length;
    position = Math.max(0, Math.min(n - 1, k));
    show();
  }

  function pick(id) {
    if (!(id in byId)) return false;
    current = byId[id];
    $("pick").value = id;
    position = 0;
    showGame();
    show();
    return true;
  }

  $("pick").addEventListener("change", function (e) {
    pick(e.target.value);
    history.replaceState(null, "", "#" + e.target.value);
  });
  $("first").addEventListener("click", function () { go(0); });
  $("prev").addEventListener("click", function () { go(position - 1); });
  $("next").addEventListener("click", function () { go(position + 1); });
  $("part").addEventListener("click", function () { go(games[current].part); });
  $("slider").addEventListener("input", function (e) { go(parseInt(e.target.value, 10)); });
  document.addEventListener("keydown", function (e) {
    var tag = (e.target && e.target.tagName) || "";
    if (tag === "SELECT" || tag === "INPUT" || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "ArrowRight") go(position + 1);
    else if (e.key === "ArrowLeft") go(position - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "p" || e.key === "P") go(games[current].part);
    else return;
    e.preventDefault();
  });
  function fromHash() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (pick(id)) $("explorer").scrollIntoView();
  }
  window.addEventListener("hashchange", fromHash);
  $("explorer").hidden = false;
  if (!pick(decodeURIComponent(location.hash.slice(1)))) pick(games[0].id);
})();
