// Evidence page helper: following a link to a check opens its attachment list (pictures and the calls that went wrong are already open).
(function () {
  function open() {
    if (!location.hash) return;
    var el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!el) return;
    Array.prototype.forEach.call(el.querySelectorAll('details.atts'), function (d) { d.open = true; });
    for (var p = el.parentElement; p; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
  }
  window.addEventListener('hashchange', open);
  open();
})();
