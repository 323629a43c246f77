/* global window, URL, URLSearchParams */
/*
 * The endpoint browser (/api-docs): swagger-ui (served by the gateway, no CDN) rendering
 * /api/openapi.json, with "try it" on the same origin (the browser sends the crm_session
 * cookie) and copy-ready request snippets in curl, JavaScript fetch, Node and Python.
 */
(function () {
  'use strict';

  function plain(value) {
    return value && typeof value.toJS === 'function' ? value.toJS() : value;
  }

  /** url, method, headers (object) and body (string or undefined) of a swagger-ui request. */
  function parts(request) {
    var url = request.get('url');
    var absolute = new URL(url, window.location.origin).toString();
    var headers = plain(request.get('headers')) || {};
    var body = plain(request.get('body'));
    if (body !== undefined && body !== null && typeof body !== 'string') {
      body = new URLSearchParams(body).toString();
    }
    return {
      url: absolute,
      method: String(request.get('method')).toUpperCase(),
      headers: headers,
      body: body === '' ? undefined : body,
    };
  }

  function quote(s) {
    return "'" + String(s).replace(/'/g, "'\\''") + "'";
  }

  function curl(request) {
    var r = parts(request);
    var lines = ['curl -X ' + r.method + ' ' + quote(r.url)];
    Object.keys(r.headers).forEach(function (name) {
      lines.push('  -H ' + quote(name + ': ' + r.headers[name]));
    });
    lines.push('  -b ' + quote('crm_session=<your session cookie>'));
    if (r.body !== undefined) lines.push('  --data-raw ' + quote(r.body));
    return lines.join(' \\\n');
  }

  function fetchCall(request, credentials) {
    var r = parts(request);
    var init = { method: r.method, headers: r.headers };
    var text = JSON.stringify(init, null, 2).slice(0, -2);
    if (credentials) text += ",\n  credentials: 'include'";
    if (r.body !== undefined) text += ',\n  body: ' + JSON.stringify(r.body);
    return 'const response = await fetch(' + JSON.stringify(r.url) + ', ' + text + '\n});';
  }

  function jsFetch(request) {
    return (
      '// In a page on this origin: the browser sends the session cookie.\n' +
      fetchCall(request, true) +
      '\nconsole.log(response.status, await response.json());'
    );
  }

  function node(request) {
    var r = parts(request);
    r.headers.cookie = 'crm_session=' + '${process.env.CRM_SESSION}';
    var init = { method: r.method, headers: r.headers };
    var text = JSON.stringify(init, null, 2)
      .replace(
        '"crm_session=${process.env.CRM_SESSION}"',
        '`crm_session=${process.env.CRM_SESSION}`',
      )
      .slice(0, -2);
    if (r.body !== undefined) text += ',\n  body: ' + JSON.stringify(r.body);
    return (
      '// Node 18+ (global fetch); CRM_SESSION holds the crm_session cookie value.\n' +
      'const response = await fetch(' +
      JSON.stringify(r.url) +
      ', ' +
      text +
      '\n});\n' +
      'console.log(response.status, await response.json());'
    );
  }

  function python(request) {
    var r = parts(request);
    var lines = [
      'import os',
      'import requests',
      '',
      'response = requests.request(',
      '    ' + JSON.stringify(r.method) + ',',
      '    ' + JSON.stringify(r.url) + ',',
      '    headers=' + JSON.stringify(r.headers) + ',',
      '    cookies={"crm_session": os.environ["CRM_SESSION"]},',
    ];
    if (r.body !== undefined) lines.push('    data=' + JSON.stringify(r.body) + ',');
    lines.push(')', 'print(response.status_code, response.text)');
    return lines.join('\n');
  }

  var SnippetsPlugin = function () {
    return {
      fn: {
        // Replaces swagger-ui's own curl (bash): the same, plus where the session cookie goes.
        requestSnippetGenerator_curl_bash: curl,
        requestSnippetGenerator_js_fetch: jsFetch,
        requestSnippetGenerator_node_fetch: node,
        requestSnippetGenerator_python_requests: python,
      },
    };
  };

  window.addEventListener('load', function () {
    window.ui = window.SwaggerUIBundle({
      url: '/api/openapi.json',
      dom_id: '#swagger-ui',
      deepLinking: true,
      docExpansion: 'list',
      tagsSorter: 'alpha',
      displayRequestDuration: true,
      withCredentials: true,
      validatorUrl: null,
      presets: [window.SwaggerUIBundle.presets.apis],
      plugins: [SnippetsPlugin],
      requestSnippetsEnabled: true,
      requestSnippets: {
        generators: {
          curl_bash: { title: 'curl (bash)', syntax: 'bash' },
          js_fetch: { title: 'JavaScript (fetch)', syntax: 'javascript' },
          node_fetch: { title: 'Node', syntax: 'javascript' },
          python_requests: { title: 'Python (requests)', syntax: 'python' },
        },
        defaultExpanded: true,
        languages: null,
      },
    });
  });
})();
