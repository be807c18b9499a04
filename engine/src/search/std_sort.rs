//! libstdc++'s `std::sort`, step for step, so that elements that compare equal end in the order lc0 (built with
//! GCC) leaves them: lc0 sorts a node's edges by prior with it (node.cc, `SortEdges`) and its VerboseMoveStats lines
//! by visits and score (search.cc, `GetVerboseStats`), and `std::sort` is not stable. Where two priors tie, the
//! first edge in that order is the one PUCT picks, so a stable sort would search another tree than lc0's.
//! Its `std::partial_sort` too, with which lc0 ranks its MultiPV lines (search.cc, `GetBestChildrenNoTemperature`).
//! Checked against the orders g++'s own sorts give (reference/libstdcxx-sort-orders.json). With an inconsistent
//! order std::sort's unguarded scans may leave the range (undefined behaviour in C++); here they stop at its ends,
//! which changes nothing for a consistent order. The heap operations stay in range whatever the order, as lc0's
//! MultiPV ranking needs (its order of terminal draws is not consistent).

/// Below this many elements libstdc++ leaves a range to its final insertion sort (`_S_threshold`).
const THRESHOLD: usize = 16;

/// Sorts `items` by `less` as libstdc++'s `std::sort(first, last, less)` does, equal elements included.
pub fn std_sort<T: Copy>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    if items.len() > 1 {
        let depth_limit = 2 * items.len().ilog2() as usize;
        introsort_loop(items, depth_limit, &less);
        final_insertion_sort(items, &less);
    }
}

/// Quicksort with median-of-three pivots down to ranges of `THRESHOLD` elements, heap sort past `depth_limit`.
fn introsort_loop<T: Copy>(mut items: &mut [T], mut depth_limit: usize, less: &impl Fn(&T, &T) -> bool) {
    while items.len() > THRESHOLD {
        if depth_limit == 0 {
            partial_sort(items, items.len(), less);
            return;
        }
        depth_limit -= 1;
        let cut = partition_around_median(items, less);
        let (left, right) = items.split_at_mut(cut);
        introsort_loop(right, depth_limit, less);
        items = left;
    }
}

/// Moves the median of the second, middle and last elements to the front and partitions the rest around it;
/// where the right part starts (`__unguarded_partition_pivot`).
fn partition_around_median<T: Copy>(items: &mut [T], less: &impl Fn(&T, &T) -> bool) -> usize {
    let (a, b, c) = (1, items.len() / 2, items.len() - 1);
    let median = if less(&items[a], &items[b]) {
        if less(&items[b], &items[c]) {
            b
        } else if less(&items[a], &items[c]) {
            c
        } else {
            a
        }
    } else if less(&items[a], &items[c]) {
        a
    } else if less(&items[b], &items[c]) {
        c
    } else {
        b
    };
    items.swap(0, median);
    let pivot = items[0];
    let (mut first, mut last) = (1, items.len());
    loop {
        while first + 1 < items.len() && less(&items[first], &pivot) {
            first += 1;
        }
        last -= 1;
        while last > 0 && less(&pivot, &items[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        items.swap(first, last);
        first += 1;
    }
}

/// An insertion sort of the first `THRESHOLD` elements, then of each later one into what precedes it.
fn final_insertion_sort<T: Copy>(items: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    for index in 1..items.len() {
        let value = items[index];
        if index < THRESHOLD && less(&value, &items[0]) {
            items.copy_within(0..index, 1);
            items[0] = value;
            continue;
        }
        let mut hole = index;
        while hole > 0 && less(&value, &items[hole - 1]) {
            items[hole] = items[hole - 1];
            hole -= 1;
        }
        items[hole] = value;
    }
}

/// libstdc++'s `std::partial_sort(first, first + middle, last)`: the `middle` least elements by `less` at the front,
/// in order: a max-heap of the first `middle`, each later element less than its top swapped in
/// (`__heap_select`), then the heap's largest popped to its end one at a time (`__sort_heap`).
pub fn partial_sort<T: Copy>(items: &mut [T], middle: usize, less: &impl Fn(&T, &T) -> bool) {
    let middle = middle.min(items.len());
    if middle >= 2 {
        for parent in (0..=(middle - 2) / 2).rev() {
            let value = items[parent];
            adjust_heap(items, parent, middle, value, less);
        }
    }
    for index in middle..items.len() {
        if middle > 0 && less(&items[index], &items[0]) {
            let value = items[index];
            items[index] = items[0];
            adjust_heap(items, 0, middle, value, less);
        }
    }
    for end in (2..=middle).rev() {
        let value = items[end - 1];
        items[end - 1] = items[0];
        adjust_heap(items, 0, end - 1, value, less);
    }
}

/// Sinks the hole at `hole` to a leaf along the larger children, then sifts `value` up from there
/// (`__adjust_heap` and `__push_heap`).
fn adjust_heap<T: Copy>(items: &mut [T], mut hole: usize, len: usize, value: T, less: &impl Fn(&T, &T) -> bool) {
    let top = hole;
    let mut child = hole;
    while child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if less(&items[child], &items[child - 1]) {
            child -= 1;
        }
        items[hole] = items[child];
        hole = child;
    }
    if len.is_multiple_of(2) && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        items[hole] = items[child - 1];
        hole = child - 1;
    }
    let mut parent = hole.wrapping_sub(1) / 2;
    while hole > top && less(&items[parent], &value) {
        items[hole] = items[parent];
        hole = parent;
        parent = hole.wrapping_sub(1) / 2;
    }
    items[hole] = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Every case of reference/libstdcxx-sort-orders.json: (key, index) pairs sorted on the key, highest first.
    fn check_against_gxx(mode: &str, sort: impl Fn(&mut [(u64, usize)])) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../reference/libstdcxx-sort-orders.json");
        let reference: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let cases: Vec<&Value> = reference["cases"].as_array().unwrap().iter().filter(|c| c["mode"] == mode).collect();
        assert!(cases.len() > 250, "{mode}: {} cases", cases.len());
        for case in cases {
            let keys: Vec<u64> = case["keys"].as_array().unwrap().iter().map(|k| k.as_u64().unwrap()).collect();
            let expected: Vec<usize> =
                case["order"].as_array().unwrap().iter().map(|i| i.as_u64().unwrap() as usize).collect();
            let mut items: Vec<(u64, usize)> = keys.iter().copied().zip(0..).collect();
            sort(&mut items);
            let order: Vec<usize> = items.iter().map(|item| item.1).collect();
            assert_eq!(order, expected, "{mode} of {keys:?}");
        }
    }

    #[test]
    fn equal_keys_end_where_gxxs_std_sort_leaves_them() {
        check_against_gxx("sort", |items| std_sort(items, |a, b| a.0 > b.0));
    }

    #[test]
    fn the_heap_sort_fallback_orders_equal_keys_as_gxxs_partial_sort() {
        check_against_gxx("heap", |items| partial_sort(items, items.len(), &|a: &(u64, usize), b| a.0 > b.0));
    }

    #[test]
    fn a_partial_sort_ranks_equal_keys_as_gxxs_partial_sort() {
        for middle in [1, 3, 4, 5] {
            let mode = format!("partial {middle}");
            check_against_gxx(&mode, |items| partial_sort(items, middle, &|a: &(u64, usize), b| a.0 > b.0));
        }
    }
}
