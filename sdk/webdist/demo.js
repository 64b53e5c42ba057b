// The demo page's script: reads the workflow from the form (prefilled
// from ?client_id=&work_flow_id=), starts the SDK, shows what the
// callbacks receive.
(function () {
  var q = new URLSearchParams(location.search);
  var form = document.getElementById('start');
  var client = document.getElementById('client');
  var workflow = document.getElementById('workflow');
  var lang = document.getElementById('lang');
  client.value = q.get('client_id') || '';
  workflow.value = q.get('work_flow_id') || '';
  lang.value = q.get('language') || '';
  var events = document.getElementById('events');
  window.demoEvents = [];
  function log(kind, data) {
    window.demoEvents.push({ kind: kind, data: data });
    events.textContent += kind + ' ' + JSON.stringify(data) + '\n';
  }
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    document.getElementById('verdict').textContent = '';
    document.getElementById('result').hidden = true;
    var handle = TambuaVerification.init({
      clientId: client.value.trim(),
      workflowId: workflow.value.trim(),
      language: lang.value || undefined,
      onStepChange: function (s) { log('step', s); },
      onSuccess: function (r) {
        log('success', { status: r.status, verification_decision: r.verification_decision, decision_reasons: r.decision_reasons, verification_id: r.verification_id });
        var v = document.getElementById('verdict');
        v.textContent = r.verification_decision + ' (' + r.status + ')';
        v.className = r.verification_decision;
        var out = document.getElementById('result');
        var shown = Object.assign({}, r);
        delete shown.raw;
        out.textContent = JSON.stringify(shown, null, 2);
        out.hidden = false;
        setTimeout(function () { handle.close(); }, 1500);
      },
      onFailure: function (err) { log('error', { code: err.code, message: err.message }); },
      onCancel: function () { log('cancel', {}); },
    });
  });
})();
