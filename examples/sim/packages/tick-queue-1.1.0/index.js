'use strict';
// 1.1.0: "fairer" tie-breaking among events due at the same tick, by a random jitter.
class TickQueue {
  constructor() {
    this.items = [];
  }

  push(event) {
    this.items.push({ event, jitter: Math.random() });
  }

  due(tick) {
    const ready = this.items.filter((item) => item.event.due <= tick);
    this.items = this.items.filter((item) => item.event.due > tick);
    return ready.sort((a, b) => a.event.due - b.event.due || a.jitter - b.jitter).map((item) => item.event);
  }
}

module.exports = { TickQueue };
