// A seeded traffic simulation: cars arrive at an intersection and a scheduler from the
// dependency `tick-queue` decides who goes first. Same seed, same run: the last line is a digest
// of the whole history, and a team's snapshot test pins it.
'use strict';
const { TickQueue } = require('tick-queue');

function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function simulate(seed, steps) {
  const random = mulberry32(seed);
  const queue = new TickQueue();
  let history = 0;
  for (let tick = 0; tick < steps; tick++) {
    const arrivals = Math.floor(random() * 3);
    for (let i = 0; i < arrivals; i++) queue.push({ car: `c${tick}-${i}`, due: tick + Math.floor(random() * 4) });
    for (const event of queue.due(tick)) {
      history = (Math.imul(history, 31) + hash(event.car)) >>> 0;
    }
  }
  return history;
}

function hash(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

const seedArg = process.argv.indexOf('--seed');
const seed = Number(seedArg >= 0 ? process.argv[seedArg + 1] : process.env.DETDRIFT_SEED ?? 42);
console.log(`seed ${seed}: history ${simulate(seed, 200).toString(16)}`);
