use super::*;

#[test]
fn a_record_reads_back_and_any_changed_sector_breaks_its_checksum() {
    let mut buf = vec![0u8; RECORD_BYTES as usize];
    let sum = encode(0xabc, 42, &mut buf);
    assert_eq!(
        parse(&buf),
        Parsed::Record {
            run: 0xabc,
            number: 42,
            intact: true
        }
    );
    let mut again = vec![0u8; RECORD_BYTES as usize];
    assert_eq!(encode(0xabc, 42, &mut again), sum, "the same record again");
    assert_eq!(buf, again);
    assert_ne!(encode(0xabc, 43, &mut again), sum);
    // The tail sectors of the slot's previous content: torn.
    buf[2048..].fill(0);
    assert_eq!(
        parse(&buf),
        Parsed::Record {
            run: 0xabc,
            number: 42,
            intact: false
        }
    );
    assert_eq!(parse(&[0u8; 4096]), Parsed::Zeros);
    assert_eq!(parse(&[7u8; 4096]), Parsed::Other);
}

#[test]
fn the_log_reads_back_and_a_half_written_last_line_is_no_acknowledgement() {
    let h = LogHeader::new("/dev/sdx", 0, 16384);
    let back = LogHeader::parse(&h.line()).unwrap();
    assert_eq!(back, h);
    assert_eq!(back.offset_of(16385), 4096);
    let text = format!(
        "{}\n{}\n{}\n{}",
        h.line(),
        ack_line(0, 0xfeed),
        ack_line(1, 0xbeef),
        "2 00"
    );
    let log = parse_log(&text).unwrap();
    assert_eq!(log.sums, vec![0xfeed, 0xbeef]);
    let gap = format!("{}\n{}\n{}\n", h.line(), ack_line(0, 1), ack_line(2, 1));
    assert!(parse_log(&gap).unwrap_err().contains("record 2 where 1"));
    assert!(parse_log("hello\n").is_err());
    assert!(parse_log("").is_err());
    // A target path with spaces survives.
    let spaced = LogHeader::new("/mnt/my disk", 0, 8);
    assert_eq!(
        LogHeader::parse(&spaced.line()).unwrap().target,
        "/mnt/my disk"
    );
}
