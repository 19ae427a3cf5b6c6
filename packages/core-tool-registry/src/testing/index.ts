export { FakeClock, type FakeClockOptions, flushMicrotasks, sequenceRandom } from './fake-clock.js';
