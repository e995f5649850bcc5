// The aggregates of Part 13 §5.4.3 (v1.05 numbering), one function per family, each computing one interval.
// The dispatch (aggregates.cpp) adds the Partial bit (§5.3.3.2) and clears the value of a Bad
// result.
#pragma once

#include "engine/server/history/interval_values.hpp"

namespace uactor::history::family {

// §5.4.3.4 Interpolative: the interpolated bounding value at the interval's timestamp.
ua::data_value interpolative(const interval_input& in);

// averages.cpp: §5.4.3.5 Average, §5.4.3.6 TimeAverage, §5.4.3.7 TimeAverage2, §5.4.3.8 Total,
// §5.4.3.9 Total2.
ua::data_value average(const interval_input& in);
enum class time_weighted { average, total };
ua::data_value time_average(const interval_input& in, bool simple_bounds, time_weighted what);

// min_max.cpp: §5.4.3.10 - §5.4.3.19.
enum class extreme { minimum, maximum, range };
ua::data_value min_max(const interval_input& in, extreme what, bool actual_time);
ua::data_value min_max_with_bounds(const interval_input& in, extreme what, bool actual_time);

// counts.cpp: §5.4.3.20 AnnotationCount, §5.4.3.21 Count, §5.4.3.22/23 DurationInStateZero and
// NonZero, §5.4.3.24 NumberOfTransitions.
ua::data_value annotation_count(const interval_input& in);
ua::data_value count(const interval_input& in);
ua::data_value duration_in_state(const interval_input& in, bool non_zero);
ua::data_value number_of_transitions(const interval_input& in);

// start_end.cpp: §5.4.3.25 Start, §5.4.3.26 End, §5.4.3.27 Delta, §5.4.3.28 StartBound,
// §5.4.3.29 EndBound, §5.4.3.30 DeltaBounds.
ua::data_value start_or_end(const interval_input& in, bool end);
ua::data_value delta(const interval_input& in);
ua::data_value bound(const interval_input& in, bool end);
ua::data_value delta_bounds(const interval_input& in);

// quality.cpp: §5.4.3.31 DurationGood, §5.4.3.32 DurationBad, §5.4.3.33 PercentGood,
// §5.4.3.34 PercentBad, §5.4.3.35 WorstQuality, §5.4.3.36 WorstQuality2.
ua::data_value duration_of_quality(const interval_input& in, bool bad, bool percent);
ua::data_value worst_quality(const interval_input& in, bool with_bounds);

// statistics.cpp: §5.4.3.37 - §5.4.3.40 StandardDeviation and Variance, Sample and Population.
ua::data_value deviation(const interval_input& in, bool sample_form, bool variance);

}  // namespace uactor::history::family
