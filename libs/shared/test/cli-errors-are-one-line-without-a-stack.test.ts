import { ConfigError } from '../src/config';
import { cliMessage } from '../src/errors';

/** A command-line tool prints its failure as one line: what went wrong, no stack trace. */
describe('cliMessage', () => {
  it('a configuration error: its source and every problem, on one line', () => {
    const err = new ConfigError('npm start', ['A: bad', 'B: worse']);
    expect(err.message).toContain('\n');
    expect(cliMessage(err)).toBe('npm start: A: bad; B: worse');
  });

  it('an error: its message, line breaks folded, no stack', () => {
    const err = new Error('first line\n  second line');
    expect(cliMessage(err)).toBe('first line second line');
    expect(cliMessage(err)).not.toContain(' at ');
  });

  it('a connection refused on every address (AggregateError without a message): its causes', () => {
    const refused = (address: string) =>
      Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });
    const err = new AggregateError([refused('::1:5432'), refused('127.0.0.1:5432')]);
    expect(cliMessage(err)).toBe(
      'connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432',
    );
    expect(cliMessage(Object.assign(new Error(''), { code: 'ECONNRESET' }))).toBe('ECONNRESET');
  });

  it('not an Error: its text', () => {
    expect(cliMessage('postgres exited')).toBe('postgres exited');
    expect(cliMessage(undefined)).toBe('undefined');
  });
});
