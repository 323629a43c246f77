/**
 * The few HTTP calls the sample-data seeding makes through the gateway, as an API client would:
 * JSON in and out, the session cookie after sign-in, and an error naming the route and the
 * platform's own message when a call is not answered with the status expected.
 */
export class GatewayClient {
  private cookie = '';
  private tenantId = '';

  constructor(private readonly baseUrl: string) {}

  async signIn(email: string, password: string): Promise<void> {
    const res = await this.send('POST', '/api/auth/sign-in', { email, password }, 200);
    this.cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
  }

  /** Every later call acts in this tenant (the `x-tenant-id` header), whatever else the user joined. */
  useTenant(tenantId: string): void {
    this.tenantId = tenantId;
  }

  async get<T>(path: string): Promise<T> {
    return (await (await this.send('GET', path, undefined, 200)).json()) as T;
  }

  async post<T>(
    path: string,
    body: unknown,
    expected = 201,
    headers: Record<string, string> = {},
  ): Promise<T> {
    return (await (await this.send('POST', path, body, expected, headers)).json()) as T;
  }

  private async send(
    method: string,
    path: string,
    body: unknown,
    expected: number,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(this.tenantId ? { 'x-tenant-id': this.tenantId } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status !== expected) {
      const text = await res.text();
      let message = text.slice(0, 300);
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? message;
      } catch {
        // not JSON: the text itself says what happened
      }
      throw new Error(`${method} ${path} answered ${res.status}: ${message}`);
    }
    return res;
  }
}
