// /debug/flags/v, as upstream's controller managers serve it (k8s.io/apiserver's routes.StringFlagPutHandler with
// component-base's GlogSetter, installed with --profiling): PUT a level in the body to change -v while the process
// runs. GET reads the level (upstream answers GET with 406 only). Both are behind the server's delegated auth like
// /metrics: a non-resource path, so the verbs a Role grants on it are `get` and `put`.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import { parseVerbosity, type Verbosity } from '../log/logger.ts';
import { errorMessage } from '../util/error-message.ts';

/** A level is a few digits: anything longer is refused before it is read. */
const BODY_LIMIT = 64;

function plainText(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).type('text/plain').header('x-content-type-options', 'nosniff').send(`${text}\n`);
}

export function debugFlagRoutes(verbosity: Verbosity): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    // curl -X PUT -d 4 sends application/x-www-form-urlencoded; upstream reads any body as the level's text.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));
    app.get('/debug/flags/v', async (_req, reply) => plainText(reply, 200, String(verbosity.level)));
    app.put('/debug/flags/v', async (req, reply) => {
      const body = typeof req.body === 'string' ? req.body : '';
      let level: number;
      try {
        level = parseVerbosity(body);
      } catch (err) {
        return plainText(reply, 400, errorMessage(err));
      }
      verbosity.level = level;
      return plainText(reply, 200, `successfully set klog.logging.verbosity to ${level}`);
    });
  };
}
