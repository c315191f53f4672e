'use strict';
// Events due at the same tick leave in the order they were pushed.
class TickQueue {
  constructor() {
    this.items = [];
    this.pushed = 0;
  }

  push(event) {
    this.items.push({ event, order: this.pushed++ });
  }

  due(tick) {
    const ready = this.items.filter((item) => item.event.due <= tick);
    this.items = this.items.filter((item) => item.event.due > tick);
    return ready.sort((a, b) => a.event.due - b.event.due || a.order - b.order).map((item) => item.event);
  }
}

module.exports = { TickQueue };
