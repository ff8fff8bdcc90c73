package dev.distlock.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Qualifies the {@link javax.sql.DataSource} the JDBC lock provider uses when the application has more than one, as
 * {@code @FlywayDataSource} does for Flyway: with a bean so qualified, the auto-configured provider runs its statements
 * on it, and the application's other data sources are left alone. A pool of the locks' own can carry settings that
 * the application's queries should not get, such as PostgreSQL's {@code options=-c enable_seqscan=off} on the URL
 * (docs/JDBC.md, "The planner and a churning table").
 */
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE,
		ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface DistributedLockDataSource {

}
