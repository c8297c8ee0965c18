"""The tower games balancing workbench: game models, Monte Carlo runners, statistics, reports and the studio.

One start-up cost is kept out of every workbench process here.  ``jsonschema`` — which altair (every
chart) and the Jupyter server import — checks the JSON-schema format "iri" with ``rfc3987_syntax``
when that package is installed (it comes with Jupyter's ``jsonschema[format-nongpl]``), and that
package builds its grammar at import: about 5 s on this machine, in every CLI run that draws a chart,
every notebook and studio kernel, every report worker.  Neither a Vega-Lite spec nor the studio's
server validates an "iri" string, so the workbench marks the package absent before anything imports
it; jsonschema then simply has no "iri" check.  (A process that imported it earlier keeps it.)
"""

import sys

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment] - an absent module, see above
