// Draws the timeline from the JSON in #data: a lane per client, the server
// and each znode over simulated time, violation bands with their labels in
// a row of their own above the time axis; the zoom slider re-lays
// everything out. Every string goes in as textContent or a title (never as
// markup).
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('data').textContent);
  var chart = document.getElementById('chart');
  var zoom = document.getElementById('zoom');
  var zoomLabel = document.getElementById('zoom-label');
  var NAME_WIDTH = 230, MARGIN_MS = Math.max(10, Math.round(data.last * 0.02));
  var LABEL_ROW = 15;  // pixels per row of violation labels
  var GLYPHS = { invoke: '\u25B8', ok: '\u2713', fail: '\u2717', info: '?', note: '\u2691', request: '\u2502',
    response: '\u00B7', error: '\u00D7', watch: '\u25C6', state: '\u25CF', fault: '\u25B2', server: '\u25A0',
    annotation: '\u270E' };
  var placed = [];  // [element, from, to or null, true if in the chart (not a track)]: what a zoom moves
  var tracks = [];
  var labels = [];  // the violation labels, in the order of their bands
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

  var inTime = data.violations.filter(function (v) { return v.placed; });
  var strip = inTime.length ? lane('violations', 'violations', 'where each violation happened') : null;
  var axis = lane('axis', 'simulated time (ms)', 'simulated time in milliseconds');
  data.lanes.forEach(function (l, i) {
    if (l.kind === 'client' && (i === 0 || data.lanes[i - 1].kind !== 'client')) section('clients');
    if (l.kind === 'znode' && data.lanes[i - 1].kind !== 'znode') section('znodes (colour: the client that created it)');
    drawLane(l);
  });
  inTime.forEach(function (v) {
    var band = el('div', 'band', chart);
    band.title = 'violation of ' + v.property + ' at t=' + v.t + ': ' + v.message;
    placed.push([band, v.t, null, true]);
    var label = el('span', 'label', strip.track);
    label.textContent = v.property + ' t=' + v.t;
    label.title = band.title;
    placed.push([label, v.t, null]);
    labels.push(label);
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

  // Each label in the first row where it clears the labels before it (by
  // time); the row of labels grows to fit them, so none covers the axis.
  function stackLabels() {
    if (!strip) return;
    var order = labels.map(function (label, i) { return i; });
    order.sort(function (a, b) { return inTime[a].t - inTime[b].t || a - b; });
    var rowEnds = [];
    order.forEach(function (i) {
      var left = labels[i].offsetLeft, row = 0;
      while (row < rowEnds.length && rowEnds[row] > left) row++;
      rowEnds[row] = left + labels[i].offsetWidth + 4;
      labels[i].style.top = row * LABEL_ROW + 'px';
    });
    strip.track.style.height = rowEnds.length * LABEL_ROW + 'px';
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
    stackLabels();
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
