package dev.distlock.readme;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's properties table lists exactly the properties of the generated configuration metadata, so a new
 * property cannot ship undocumented.
 */
class ReadmePropertiesTest {

	// A row's first cell: `distributed-lock.redis.namespace` / `pub-sub`, the short names siblings of the first.
	private static final Pattern ROW = Pattern.compile("(?m)^\\| (`distributed-lock\\.[^|]*?) \\|");

	@Test
	void tableListsEveryPropertyOfTheMetadataAndNoOther() {
		assertThat(tableProperties()).containsExactlyElementsOf(Readme.metadataProperties());
	}

	private static Set<String> tableProperties() {
		String table = section(Readme.text(), "## Properties");
		Set<String> names = new TreeSet<>();
		Matcher row = ROW.matcher(table);
		while (row.find()) {
			String[] cells = row.group(1).split(" / ");
			String first = cells[0].replace("`", "").trim();
			names.add(first);
			String parent = first.substring(0, first.lastIndexOf('.') + 1);
			for (int i = 1; i < cells.length; i++) {
				names.add(parent + cells[i].replace("`", "").trim());
			}
		}
		return names;
	}

	private static String section(String text, String heading) {
		int start = text.indexOf("\n" + heading + "\n");
		assertThat(start).as(heading).isNotNegative();
		int end = text.indexOf("\n## ", start + heading.length() + 1);
		return text.substring(start, (end < 0) ? text.length() : end);
	}

}
