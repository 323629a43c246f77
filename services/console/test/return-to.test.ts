import { returnTo } from '../src/session/return-to';

describe('where signing in returns to', () => {
  it('the page that sent the user to sign-in, with its query string', () => {
    expect(returnTo({ from: '/oauth/consent?request=abc' })).toBe('/oauth/consent?request=abc');
    expect(returnTo({ from: '/members' })).toBe('/members');
  });

  it('the leads when nothing sent the user there', () => {
    expect(returnTo(null)).toBe('/leads');
    expect(returnTo(undefined)).toBe('/leads');
    expect(returnTo({})).toBe('/leads');
    expect(returnTo({ from: 42 })).toBe('/leads');
  });

  it('never another origin, nor the sign-in or sign-up page itself', () => {
    expect(returnTo({ from: '//evil.example/x' })).toBe('/leads');
    expect(returnTo({ from: '/\\evil.example/x' })).toBe('/leads');
    expect(returnTo({ from: 'https://evil.example/x' })).toBe('/leads');
    expect(returnTo({ from: '/sign-in' })).toBe('/leads');
    expect(returnTo({ from: '/sign-in?x=1' })).toBe('/leads');
    expect(returnTo({ from: '/sign-up' })).toBe('/leads');
  });
});
