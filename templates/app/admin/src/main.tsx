// The admin UI: React-Admin over the app's /v1 API, one page set per entity (src/resources/).
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Admin, Resource } from 'react-admin';
import { createDataProvider } from '@slicekit/runtime/admin';
import { authProvider, LoginPage, readToken } from './auth.js';
import { resources } from './resources.js';

const dataProvider = createDataProvider({
  apiUrl: new URL('../v1', window.location.href).pathname,
  token: readToken,
  // The header src/idempotency.ts reads the key from.
  idempotencyHeader: 'X-Idempotency-Key',
  requiresKey: Object.fromEntries(resources.map((r) => [r.name, r.requiresKey])),
});

function App() {
  return (
    <Admin
      dataProvider={dataProvider}
      authProvider={authProvider}
      loginPage={LoginPage}
      requireAuth={false}
      disableTelemetry
    >
      {resources.map(({ requiresKey: _, ...resource }) => (
        <Resource key={resource.name} {...resource} />
      ))}
    </Admin>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
