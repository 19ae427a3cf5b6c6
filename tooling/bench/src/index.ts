export type { Bench, BenchOptions, BenchReport } from './report.js';
