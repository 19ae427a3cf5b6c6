import { describe, expect, it } from 'vitest';
import { ListedNames } from './listed-names.js';

const CLIENT_SAFE = /^[a-zA-Z0-9_-]{1,64}$/;
const IDS = ['calculate', 'terminal.run', 'terminal.ubuntu.ensure', 'terminal_run_x', 'demo.a-b'];

describe('ListedNames', () => {
  it('lists every id under a name every client accepts, keeping safe ids as they are', () => {
    const names = new ListedNames('safe', () => IDS);
    const listed = IDS.map((id) => names.nameOf(id));
    expect(listed).toEqual([
      'calculate',
      'terminal_run',
      'terminal_ubuntu_ensure',
      'terminal_run_x',
      'demo_a-b',
    ]);
    for (const name of listed) expect(name).toMatch(CLIENT_SAFE);
    expect(new Set(listed).size).toBe(IDS.length);
  });

  it('resolves a call by the listed name or by the id to the same tool', () => {
    const names = new ListedNames('safe', () => IDS);
    expect(names.idOf('terminal_run')).toBe('terminal.run');
    expect(names.idOf('terminal.run')).toBe('terminal.run');
    expect(names.idOf('calculate')).toBe('calculate');
    expect(names.idOf('no_such_tool')).toBe('no_such_tool');
  });

  it('never lets a safe name shadow an id that is spelled that way', () => {
    const names = new ListedNames('safe', () => ['a.b', 'a_b']);
    expect(names.nameOf('a_b')).toBe('a_b');
    expect(names.nameOf('a.b')).not.toBe('a_b');
    expect(names.nameOf('a.b')).toMatch(CLIENT_SAFE);
    expect(names.idOf('a_b')).toBe('a_b');
    expect(names.idOf(names.nameOf('a.b'))).toBe('a.b');
  });

  it('lists the ids as they are in "ids" mode, where calls by id still work', () => {
    const names = new ListedNames('ids', () => IDS);
    expect(names.nameOf('terminal.run')).toBe('terminal.run');
    expect(names.idOf('terminal.run')).toBe('terminal.run');
    expect(names.inText('use terminal.run')).toBe('use terminal.run');
  });

  it('names other tools in descriptions as they are listed, whole ids only', () => {
    const names = new ListedNames('safe', () => IDS);
    expect(
      names.inText('Then call terminal.run. See terminal.ubuntu.ensure, terminal.runner.'),
    ).toBe('Then call terminal_run. See terminal_ubuntu_ensure, terminal.runner.');
  });

  it('follows the ids after a reset', () => {
    let ids = ['x.y'];
    const names = new ListedNames('safe', () => ids);
    expect(names.idOf('x_y')).toBe('x.y');
    ids = ['x.z'];
    names.reset();
    expect(names.idOf('x_z')).toBe('x.z');
    expect(names.idOf('x_y')).toBe('x_y');
  });
});
