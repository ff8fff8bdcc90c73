package dev.distlock.samples;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import dev.distlock.core.FailureMode;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContext;

/**
 * A job every instance schedules but only one runs per period: the others skip while the lock is held, and the
 * minimum hold keeps it held for most of the period even though the job itself is quick, so an instance whose clock
 * fires a little later does not run it again.
 */
@Component
public class ReportJob {

	private static final Log logger = LogFactory.getLog(ReportJob.class);

	private final AtomicInteger runs = new AtomicInteger();

	private volatile @Nullable Run last;

	/**
	 * Builds the report, at most once per period across all instances.
	 */
	@Scheduled(fixedRateString = "${sample.report.rate:10s}", initialDelayString = "${sample.report.initial-delay:2s}")
	@DistributedLock(key = "'report:hourly'", onFailure = FailureMode.SKIP, timeoutString = "30s",
			holdAtLeastString = "${sample.report.hold-at-least:8s}")
	public void buildReport() {
		Run run = new Run(runs.incrementAndGet(), Instant.now(), LockContext.current().fencingToken());
		last = run;
		logger.info("Report run " + run.number() + " with fencing token " + run.fencingToken());
	}

	/**
	 * How many times this instance ran the job, and its last run.
	 */
	public Status status() {
		return new Status(runs.get(), last);
	}

	/**
	 * One run of the job on this instance.
	 * @param number the run count on this instance
	 * @param at when it ran
	 * @param fencingToken the lock's fencing token
	 */
	public record Run(int number, Instant at, long fencingToken) {
	}

	/**
	 * The job's runs on this instance.
	 * @param runs how many times it ran here
	 * @param last the last run here, or null
	 */
	public record Status(int runs, @Nullable Run last) {
	}

}
