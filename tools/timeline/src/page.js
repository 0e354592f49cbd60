// Draws the timeline from the JSON in #data: a lane per client, the server
// and each znode over simulated time, violation bands, a time axis; the
// zoom slider re-lays everything out. Every string goes in as textContent
// or a title (never as markup).
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('data').textContent);
  var chart = document.getElementById('chart');
  var zoom = document.getElementById('zoom');
  var zoomLabel = document.getElementById('zoom-label');
  var NAME_WIDTH = 230, MARGIN_MS = Math.max(10, Math.round(data.last * 0.02));
  var GLYPHS = { invoke: '\u25B8', ok: '\u2713', fail: '\u2717', info: '?', note: '\u2691', request: '\u2502',
    response: '\u00B7', error: '\u00D7', watch: '\u25C6', state: '\u25CF', fault: '\u25B2', server: '\u25A0',
    annotation: '\u270E' };
  var placed = [];  // [element, from, to or null]: what a zoom moves
  var tracks = [];
  var scale = 1;    // pixels per simulated millisecond

  function el(tag, cls, parent) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (parent) parent.appendChild(e);
    return e;
  }
  function end() { return data.last + MARGIN_MS; }
  function clientColor(c) { return c < 0 ? '#90a4ae' : 'hsl(' + ((c * 137.5) % 360) + ', 55%, 45%)'; }

  function lane(kind, name, title) {
    var row = el('div', 'lane ' + kind, chart);
    var label = el('div', 'name', row);
    label.textContent = name;
    label.title = title;
    var track = el('div', 'track', row);
    tracks.push(track);
    return { row: row, label: label, track: track };
  }

  function drawLane(l) {
    var title = l.kind === 'znode' ? l.title : l.name;
    var ln = lane(l.kind, l.name, title);
    if (l.culprit) ln.label.className += ' culprit';
    if (l.kind === 'znode') ln.label.style.color = clientColor(l.client);
    l.spans.forEach(function (s) {
      var span = el('div', 'span ' + s[2] + (s[1] < 0 ? ' open' : ''), ln.track);
      if (s[2] === 'holding') span.textContent = s[3];
      if (s[2] === 'znode') span.style.background = clientColor(l.client);
      span.title = s[4];
      placed.push([span, s[0], s[1] < 0 ? end() : s[1]]);
    });
    l.marks.forEach(function (m) {
      var mark = el('div', 'mark ' + m[1] + (m[3] ? ' alert' : ''), ln.track);
      mark.textContent = GLYPHS[m[1]] || '\u2022';
      mark.title = m[2];
      placed.push([mark, m[0], null]);
    });
  }

  function section(text) { el('div', 'section', chart).textContent = text; }

  var axis = lane('axis', 'simulated time (ms)', 'simulated time in milliseconds');
  data.lanes.forEach(function (l, i) {
    if (l.kind === 'client' && (i === 0 || data.lanes[i - 1].kind !== 'client')) section('clients');
    if (l.kind === 'znode' && data.lanes[i - 1].kind !== 'znode') section('znodes (colour: the client that created it)');
    drawLane(l);
  });
  data.violations.forEach(function (v, i) {
    if (!v.placed) return;
    var band = el('div', 'band', chart);
    band.title = 'violation of ' + v.property + ' at t=' + v.t + ': ' + v.message;
    var label = el('span', 'label', band);
    label.textContent = v.property + ' t=' + v.t;
    label.style.top = (i % 3) * 15 + 'px';
    placed.push([band, v.t, null, true]);
  });

  function niceStep() {
    var want = 90 / scale, step = 1;
    while (step < want) {
      if (step * 2 >= want) return step * 2;
      if (step * 5 >= want) return step * 5;
      step *= 10;
    }
    return step;
  }

  function layout() {
    var width = Math.ceil(end() * scale) + 20;
    tracks.forEach(function (t) { t.style.width = width + 'px'; });
    placed.forEach(function (p) {
      var left = p[1] * scale + (p[3] ? NAME_WIDTH : 0);
      p[0].style.left = left + 'px';
      if (p[2] !== null) p[0].style.width = Math.max(2, (p[2] - p[1]) * scale) + 'px';
    });
    while (axis.track.firstChild) axis.track.removeChild(axis.track.firstChild);
    var step = niceStep();
    for (var t = 0; t <= end(); t += step) {
      var tick = el('div', 'tick', axis.track);
      tick.style.left = t * scale + 'px';
      tick.textContent = String(t);
    }
    zoomLabel.textContent = (scale >= 1 ? scale.toFixed(0) + ' px/ms' : (1 / scale).toFixed(0) + ' ms/px');
  }

  function fit() {
    var room = Math.max(200, (window.innerWidth || 1000) - NAME_WIDTH - 60);
    var v = Math.log(room / end()) / Math.LN2;
    zoom.value = String(Math.max(Number(zoom.min), Math.min(Number(zoom.max), v)));
  }

  zoom.addEventListener('input', function () {
    scale = Math.pow(2, Number(zoom.value));
    layout();
  });
  document.getElementById('fit').addEventListener('click', function () {
    fit();
    scale = Math.pow(2, Number(zoom.value));
    layout();
  });
  fit();
  scale = Math.pow(2, Number(zoom.value));
  layout();
  document.body.setAttribute('data-lanes-drawn', String(data.lanes.length));
})();
