package dev.distlock.spring;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.spring.LockedServices.Keys;
import dev.distlock.spring.LockedServices.Order;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Key expressions are parsed once per method, on its first call (or at startup), and only evaluated afterwards.
 */
class KeyExpressionParsingTest {

	private final LockTemplate template = new LockTemplate(new InMemoryLockProvider());

	private final CountingParser parser = new CountingParser();

	private final Keys keys = proxy(new Keys());

	@AfterEach
	void closeTemplate() {
		template.close();
	}

	@Test
	void eachExpressionIsParsedOnceHoweverOftenTheMethodRuns() {
		for (int call = 0; call < 25; call++) {
			assertThat(keys.describe("n" + call, call, new Order("o-" + call, 1)))
				.isEqualTo("describe:n" + call + ":" + call + ":o-" + call + ":1");
			assertThat(keys.rooted("r" + call, 2)).isEqualTo("rooted:eu:r" + call + ":2");
		}
		assertThat(parser.parses).containsOnlyKeys(
				"#root.methodName + ':' + #p0 + ':' + #a1 + ':' + #order.id + ':' + #order.seats()",
				"#root.method.name + ':' + #root.target.region + ':' + #root.args[0] + ':' + #root.args.length")
			.containsValues(1, 1);
	}

	@Test
	void eachExpressionOfAKeyGroupIsParsedOnce() {
		for (int call = 0; call < 10; call++) {
			assertThat(keys.pair("b" + call, "a" + call)).containsExactly("seat:a" + call, "seat:b" + call);
		}
		assertThat(parser.parses).isEqualTo(Map.of("'seat:' + #a", 1, "'seat:' + #b", 1));
	}

	@Test
	void validatingAtStartupParsesAndCallsParseNoMore() throws Exception {
		DistributedLockInterceptor interceptor = new DistributedLockInterceptor(() -> template, null, null, parser);
		interceptor.validate(Keys.class.getMethod("pair", String.class, String.class), Keys.class);
		assertThat(parser.parses).containsValues(1, 1);
		Keys proxied = proxy(new Keys(), interceptor);
		proxied.pair("x", "y");
		proxied.pair("y", "z");
		assertThat(parser.parses).isEqualTo(Map.of("'seat:' + #a", 1, "'seat:' + #b", 1));
	}

	private Keys proxy(Keys target) {
		return proxy(target, new DistributedLockInterceptor(() -> template, null, null, parser));
	}

	private static Keys proxy(Keys target, DistributedLockInterceptor interceptor) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new DefaultPointcutAdvisor(new DistributedLockPointcut(), interceptor));
		return (Keys) factory.getProxy();
	}

	/** A SpEL parser that counts how often each source is parsed. */
	static final class CountingParser extends SpelExpressionParser {

		final Map<String, Integer> parses = new ConcurrentHashMap<>();

		@Override
		public Expression parseExpression(String expressionString) throws ParseException {
			parses.merge(expressionString, 1, Integer::sum);
			return super.parseExpression(expressionString);
		}

	}

}
