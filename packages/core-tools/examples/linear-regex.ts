import { compileLinearRegex } from '@toolsys/platform';

// A pattern from outside runs in linear time, however it is written.
console.log(
  compileLinearRegex('(a+)+$', {})
    .matcher(`${'a'.repeat(40)}!`)
    .find(),
);

// A backreference cannot run in linear time: refused, naming the field.
try {
  compileLinearRegex('(a)\\1', {}, 'pattern');
} catch (error) {
  console.log((error as Error).message);
}

// Prints:
// false
// pattern: the backreference \1 is not supported: this tool uses the linear-time RE2 engine, which has no backreferences or lookahead
