// Clause-matrix filters of reports/index.html (area, verdict, severity, text); state kept in the URL hash so a filtered view can be linked.
(function () {
  var form = document.getElementById('filters');
  if (!form) return;
  var area = document.getElementById('f-area'), verdict = document.getElementById('f-verdict'), severity = document.getElementById('f-severity'), text = document.getElementById('f-text');
  var rows = Array.prototype.slice.call(document.querySelectorAll('#matrix tbody tr'));
  var shown = document.getElementById('shown');
  function apply(write) {
    var q = text.value.trim().toLowerCase(), n = 0;
    rows.forEach(function (tr) {
      var hide = (area.value && tr.dataset.area !== area.value) || (verdict.value && tr.dataset.verdict !== verdict.value) ||
        (severity.value && tr.dataset.severity !== severity.value) || (q && tr.textContent.toLowerCase().indexOf(q) < 0);
      tr.hidden = !!hide;
      if (!hide) n++;
    });
    shown.textContent = n + ' of ' + rows.length + ' clauses shown';
    if (write) {
      var p = [];
      if (area.value) p.push('area=' + encodeURIComponent(area.value));
      if (verdict.value) p.push('verdict=' + encodeURIComponent(verdict.value));
      if (severity.value) p.push('severity=' + encodeURIComponent(severity.value));
      if (q) p.push('q=' + encodeURIComponent(q));
      history.replaceState(null, '', p.length ? '#filter:' + p.join('&') : location.pathname);
    }
  }
  function read() {
    if (location.hash.indexOf('#filter:') !== 0) return;
    location.hash.slice(8).split('&').forEach(function (kv) {
      var i = kv.indexOf('='), k = kv.slice(0, i), v = decodeURIComponent(kv.slice(i + 1));
      if (k === 'area') area.value = v; else if (k === 'verdict') verdict.value = v; else if (k === 'severity') severity.value = v; else if (k === 'q') text.value = v;
    });
  }
  form.addEventListener('change', function () { apply(true); });
  form.addEventListener('input', function () { apply(true); });
  form.addEventListener('submit', function (e) { e.preventDefault(); apply(true); });
  form.addEventListener('reset', function () { setTimeout(function () { apply(true); }, 0); });
  window.addEventListener('hashchange', function () { read(); apply(false); });
  read();
  apply(false);
})();
