// How the admin authenticates: the caller pastes a bearer token (one the API's AUTH_* settings
// accept) on the login page; it is kept in this tab's sessionStorage and sent with every API call.
// Without AUTH_* settings every caller is anonymous and no token is needed.
import { useState, type FormEvent } from 'react';
import { useLogin, useNotify, type AuthProvider } from 'react-admin';

const KEY = 'admin.token';

/** The token of this tab, if the caller gave one. */
export function readToken(): string | null {
  return sessionStorage.getItem(KEY);
}

export const authProvider: AuthProvider = {
  async login({ token }: { token?: string }) {
    if (token?.trim()) sessionStorage.setItem(KEY, token.trim());
    else sessionStorage.removeItem(KEY);
  },
  async logout() {
    sessionStorage.removeItem(KEY);
  },
  // The API decides who may see what: the admin itself lets everyone in.
  async checkAuth() {},
  // 401: the token is missing, expired or refused; ask for one.
  async checkError(error: { status?: number }) {
    if (error?.status === 401) throw new Error('sign in with a token');
  },
  async getPermissions() {
    return undefined;
  },
};

// (No double braces in these files: the app generator renders them as Handlebars templates.)
const page = { maxWidth: 480, margin: '4rem auto', fontFamily: 'sans-serif' } as const;
const block = { display: 'block', width: '100%' } as const;

/** A page asking for the bearer token. */
export function LoginPage() {
  const [token, setToken] = useState('');
  const login = useLogin();
  const notify = useNotify();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login({ token }).catch(() => notify('The token was not accepted', { type: 'error' }));
  };
  return (
    <main style={page}>
      <h1>Sign in</h1>
      <form onSubmit={submit}>
        <label htmlFor="token">Bearer token</label>
        <textarea
          id="token"
          value={token}
          onChange={(event) => setToken(event.target.value)}
          rows={4}
          style={block}
        />
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}
