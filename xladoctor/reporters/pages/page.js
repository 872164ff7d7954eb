// xladoctor's HTML reports: one small script, inlined. Without it every page reads the same (nothing is hidden
// that matters): it adds copy buttons, table sorting, the outlier filter, and opens the folded lists to print.
(function () {
  "use strict";
  function say(button, text) {
    button.textContent = text;
    setTimeout(function () { button.textContent = "Copy"; }, 2000);
  }
  function fallback(text, button) {
    // file:// pages and older browsers: copy through a selected textarea
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.appendChild(area);
    area.select();
    var copied = false;
    try { copied = document.execCommand("copy"); } catch (e) { copied = false; }
    document.body.removeChild(area);
    say(button, copied ? "Copied" : "Press Ctrl+C");
  }
  document.querySelectorAll("button.copy").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var text = button.parentNode.querySelector("pre").textContent;
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { say(button, "Copied"); },
          function () { fallback(text, button); });
      } else {
        fallback(text, button);
      }
    });
  });
  function key(cell) {
    return cell ? (cell.getAttribute("data-v") || cell.textContent) : "";
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th[data-col]");
    heads.forEach(function (th) {
      th.tabIndex = 0;
      th.title = "Sort by this column";
      function sort() {
        var column = Number(th.getAttribute("data-col"));
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        // one <tbody> per row of data (a worker and the fix under it): sort the bodies, or the rows of one body
        var bodies = table.tBodies;
        var many = bodies.length > 1;
        var items = Array.prototype.slice.call(many ? bodies : bodies[0].rows);
        items.sort(function (a, b) {
          var x = key((many ? a.rows[0] : a).cells[column]);
          var y = key((many ? b.rows[0] : b).cells[column]);
          var order = x.localeCompare(y, undefined, { numeric: true });
          return ascending ? order : -order;
        });
        var parent = many ? table : bodies[0];
        items.forEach(function (item) { parent.appendChild(item); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sort(); }
      });
    });
  });
  document.querySelectorAll("input[data-filter]").forEach(function (box) {
    var table = document.getElementById(box.getAttribute("data-filter"));
    box.closest(".filter").hidden = false;
    box.addEventListener("change", function () { table.classList.toggle("only-outliers", box.checked); });
  });
  var opened = [];
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details.print-open:not([open])").forEach(function (d) { d.open = true; opened.push(d); });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });
})();
