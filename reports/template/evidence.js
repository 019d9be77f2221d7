// Evidence page helper: opening a check's anchor also opens its collapsed attachments, so a followed link shows the evidence at once.
(function () {
  function open() {
    if (!location.hash) return;
    var el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!el) return;
    Array.prototype.forEach.call(el.querySelectorAll('details'), function (d) { d.open = true; });
    for (var p = el.parentElement; p; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
  }
  window.addEventListener('hashchange', open);
  open();
})();
