// Draws the timeline from the JSON in #data: a lane per client, the server
// and each znode over simulated time, violation bands with their labels in
// a row of their own above the time axis; the zoom slider re-lays
// everything out. A large run (many lanes) opens zoomed on its earliest
// violation (without one: on its start, zoomed so that marks stand apart),
// with the lanes that show nothing in view folded to a line; "show all"
// shows the whole run and every lane. A folded page (data.folded: a run
// with more marks than a page draws one by one) draws each lane's time
// buckets instead of its spans and marks, and opens on the whole run.
// Violation bands start below the time axis, so none crosses its labels.
// Every string goes in as textContent or a title (never as markup).
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('data').textContent);
  var chart = document.getElementById('chart');
  var scroller = document.getElementById('scroller');
  var zoom = document.getElementById('zoom');
  var zoomLabel = document.getElementById('zoom-label');
  var foldBox = document.getElementById('fold');
  var foldCount = document.getElementById('fold-count');
  var toViolation = document.getElementById('to-violation');
  var NAME_WIDTH = 230, MARGIN_MS = Math.max(10, Math.round(data.last * 0.02));
  var LABEL_ROW = 15;  // pixels per row of violation labels
  var LABEL_ROWS = 4;  // rows of violation labels at most; a label that fits none is hidden (its band keeps its title)
  var MARK_PX = 10;    // a large run without a violation opens with about one mark per MARK_PX pixels
  // Large: more lanes than a screen shows at once.
  var clients = data.lanes.filter(function (l) { return l.kind === 'client'; }).length;
  var LARGE = !data.folded && (data.lanes.length > 40 || clients > 8);
  var GLYPHS = { invoke: '\u25B8', ok: '\u2713', fail: '\u2717', info: '?', note: '\u2691', request: '\u2502',
    response: '\u00B7', error: '\u00D7', watch: '\u25C6', state: '\u25CF', fault: '\u25B2', server: '\u25A0',
    annotation: '\u270E' };
  var placed = [];  // [element, from, to or null, true if in the chart (not a track)]: what a zoom moves
  var tracks = [];
  var drawn = [];   // per drawn lane: its row, whether it is a culprit's, and the times things happen on it, sorted
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

  // A folded lane's buckets: [index, held ms, waited ms, marks, faults].
  // Shade: how many marks (against the busiest bucket); bars from the
  // bottom: the shares of the bucket's time held and waited.
  var busiest = 1;
  if (data.folded) {
    data.lanes.forEach(function (l) { l.buckets.forEach(function (b) { busiest = Math.max(busiest, b[3]); }); });
  }
  function drawBuckets(l, ln, times) {
    var width = data.folded.bucket_ms;
    l.buckets.forEach(function (b) {
      var from = b[0] * width, cell = el('div', 'bucket', ln.track);
      cell.style.background = 'rgba(84, 110, 122, ' + (0.08 + 0.5 * b[3] / busiest).toFixed(3) + ')';
      var held = el('div', 'held', cell), waited = el('div', 'waited', cell);
      held.style.height = Math.min(100, 100 * b[1] / width).toFixed(1) + '%';
      waited.style.height = Math.min(100, 100 * b[2] / width).toFixed(1) + '%';
      waited.style.bottom = held.style.height;
      if (b[4] > 0) el('div', 'mark fault', cell).textContent = '\u25B2';
      cell.title = l.name + ', t=' + from + ' to ' + (from + width - 1) + ': held ' + b[1] + ' ms, waited ' + b[2] +
          ' ms; ' + b[3] + ' events, ' + b[4] + ' faults';
      placed.push([cell, from, from + width]);
      times.push(from);
    });
  }

  function drawLane(l) {
    var title = l.kind === 'znode' ? l.title : l.name;
    var ln = lane(l.kind, l.name, title);
    var times = [];
    if (l.culprit) ln.label.className += ' culprit';
    if (l.kind === 'znode') ln.label.style.color = clientColor(l.client);
    if (l.buckets) {
      drawBuckets(l, ln, times);
      drawn.push({ row: ln.row, culprit: !!l.culprit, times: times });
      return;
    }
    l.spans.forEach(function (s) {
      var span = el('div', 'span ' + s[2] + (s[1] < 0 ? ' open' : ''), ln.track);
      if (s[2] === 'holding') span.textContent = s[3];
      if (s[2] === 'znode') span.style.background = clientColor(l.client);
      span.title = s[4];
      placed.push([span, s[0], s[1] < 0 ? end() : s[1]]);
      times.push(s[0]);
      if (s[1] >= 0) times.push(s[1]);
    });
    l.marks.forEach(function (m) {
      var mark = el('div', 'mark ' + m[1] + (m[3] ? ' alert' : ''), ln.track);
      mark.textContent = GLYPHS[m[1]] || '\u2022';
      mark.title = m[2];
      placed.push([mark, m[0], null]);
      times.push(m[0]);
    });
    times.sort(function (a, b) { return a - b; });
    drawn.push({ row: ln.row, culprit: !!l.culprit, times: times });
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
  var bands = [];
  inTime.forEach(function (v) {
    var band = el('div', 'band', chart);
    bands.push(band);
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
  // time); the row of labels grows to fit them, so none covers the axis,
  // up to LABEL_ROWS rows: a label that clears none of them is hidden
  // until a zoom gives it room.
  function stackLabels() {
    if (!strip) return;
    var order = labels.map(function (label, i) { return i; });
    order.sort(function (a, b) { return inTime[a].t - inTime[b].t || a - b; });
    var rowEnds = [];
    order.forEach(function (i) {
      labels[i].style.display = '';
      var left = labels[i].offsetLeft, row = 0;
      while (row < rowEnds.length && rowEnds[row] > left) row++;
      if (row >= LABEL_ROWS) {
        labels[i].style.display = 'none';
        return;
      }
      rowEnds[row] = left + labels[i].offsetWidth + 4;
      labels[i].style.top = row * LABEL_ROW + 'px';
    });
    strip.track.style.height = rowEnds.length * LABEL_ROW + 'px';
  }

  // The bands run from below the time axis to the bottom of the chart.
  function placeBands() {
    var top = axis.row.offsetTop + axis.row.offsetHeight;
    bands.forEach(function (band) { band.style.top = top + 'px'; });
  }

  // The simulated times in view: from the left edge of the tracks (right
  // of the lane names) to the right edge of the scroller.
  function inView() {
    var from = scroller.scrollLeft / scale;
    return [from, from + Math.max(0, scroller.clientWidth - NAME_WIDTH) / scale];
  }

  // Whether something happens on a lane between `from` and `to`: a mark,
  // or the start or end of a span.
  function happens(times, from, to) {
    var lo = 0, hi = times.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (times[mid] < from) lo = mid + 1; else hi = mid;
    }
    return lo < times.length && times[lo] <= to;
  }

  // With folding on, a lane that shows nothing in view (and is not a
  // culprit's) is folded to a thin line that still shows its colours.
  function fold() {
    var view = inView(), folded = 0;
    drawn.forEach(function (d) {
      var thin = foldBox.checked && !d.culprit && !happens(d.times, view[0], view[1]);
      if (thin) folded++;
      if (d.row.classList.contains('folded') !== thin) d.row.classList.toggle('folded', thin);
    });
    foldCount.textContent = foldBox.checked ? folded + ' of ' + drawn.length + ' lanes folded' : '';
  }

  // Folding can add or remove the page's scroll bar, which changes the
  // width in view: fold again once if it did.
  function refold() {
    var width = scroller.clientWidth;
    fold();
    if (scroller.clientWidth !== width) fold();
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
    placeBands();
    zoomLabel.textContent = (scale >= 1 ? scale.toFixed(0) + ' px/ms' : (1 / scale).toFixed(0) + ' ms/px');
  }

  // The pixels a track shows at once.
  function room() { return Math.max(200, (scroller.clientWidth || window.innerWidth || 1000) - NAME_WIDTH - 24); }

  // Shows simulated times [from, to] across the width in view.
  function show(from, to) {
    scale = room() / Math.max(1, to - from);
    zoom.value = String(Math.log(scale) / Math.LN2);
    layout();
    scroller.scrollLeft = from * scale;
    refold();
  }

  // Around the earliest violation: the holding, pauses, expiries, crashes
  // and reconnections of its clients that span its time (what led to it),
  // with some room either side; at most a quarter of the run.
  function violationWindow() {
    var v = inTime.reduce(function (a, b) { return b.t < a.t ? b : a; });
    var from = v.t, to = v.t;
    var context = { holding: 1, paused: 1, unaware: 1, crashed: 1, disconnected: 1 };
    data.lanes.forEach(function (l) {
      if (!l.culprit || !l.spans) return;
      l.spans.forEach(function (s) {
        var spanEnd = s[1] < 0 ? end() : s[1];
        if (context[s[2]] && s[0] <= v.t && v.t <= spanEnd) {
          from = Math.min(from, s[0]);
          to = Math.max(to, spanEnd);
        }
      });
    });
    var pad = Math.max(10, (to - from) * 0.1, end() * 0.01), most = end() / 4;
    from = Math.max(0, from - pad);
    to = Math.min(end(), to + pad);
    if (to - from > most) {
      from = Math.max(from, v.t - most / 2);
      to = from + most;
    }
    return [from, to];
  }

  // The start of the run, at a scale where a client's lane shows about one
  // mark per MARK_PX pixels on average (the whole run if that fits).
  function startWindow() {
    var marks = 0;
    data.lanes.forEach(function (l) { if (l.kind === 'client') marks += l.marks.length; });
    var perMs = marks / Math.max(1, clients) / end();
    return [0, perMs > 0 ? Math.min(end(), room() / (MARK_PX * perMs)) : end()];
  }

  function showAll() {
    foldBox.checked = false;
    show(0, end());
  }

  zoom.addEventListener('input', function () {
    var view = inView(), centre = (view[0] + view[1]) / 2;
    scale = Math.pow(2, Number(zoom.value));
    layout();
    scroller.scrollLeft = centre * scale - (view[1] - view[0]) * scale / 2;
    refold();
  });
  // Scrolling and resizing change what is in view: fold again, once a frame.
  var pending = false;
  function refoldSoon() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      refold();
    });
  }
  scroller.addEventListener('scroll', refoldSoon);
  window.addEventListener('resize', refoldSoon);
  foldBox.addEventListener('change', refold);
  document.getElementById('show-all').addEventListener('click', showAll);
  if (inTime.length) {
    toViolation.hidden = false;
    toViolation.addEventListener('click', function () { show.apply(null, violationWindow()); });
  }
  foldBox.checked = LARGE;
  if (LARGE) {
    show.apply(null, inTime.length ? violationWindow() : startWindow());
  } else {
    show(0, end());
  }
  document.body.setAttribute('data-lanes-drawn', String(data.lanes.length));
})();
